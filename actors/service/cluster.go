package service

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/redisstream/coordinator/actors/wire"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// Cluster lists the coordinator nodes this node knows of: the members of its
// cluster (each asked which group activations it hosts, as /debug/actors
// does) and the nodes registered in the same store (node registry: start
// and renewal times, refusing flag), joined by incarnation. It answers also
// while this node refuses to serve: that is when an operator needs it.
func (h Monitor) Cluster(ctx context.Context) (protocol.ClusterResponse, error) {
	// Both asks fit in the caller's deadline: this node's actors get half of it, the
	// other nodes what is left (a node that does not answer is listed as such).
	self := h.views.NodeInfo(h.router.LocalDebug(h.router.Within(ctx) / 2))
	infos := []*wire.NodeInfo{self}
	if h.router.Clustered() {
		infos = h.views.Nodes(self, h.router.Within(ctx))
	} else {
		self.Address = "" // no cluster address: cluster.provider single
	}
	keys := map[string]persistence.GroupKey{}
	if stored, err := h.opts.Store.ListGroups(ctx, ""); err == nil {
		for _, k := range stored {
			keys[k.String()] = k
		}
	}
	byOwner := map[string]*protocol.ClusterNode{}
	var out []*protocol.ClusterNode
	for _, n := range infos {
		v := &protocol.ClusterNode{NodeID: n.GetNodeId(), Incarnation: incarnationOf(n.GetOwner()), Address: n.GetAddress(),
			Self: n == self, InCluster: true, Refusing: n.GetRefusing() != "", RefusingReason: n.GetRefusing(), Groups: []protocol.ClusterGroup{}}
		for _, a := range n.GetActivations() {
			k, ok := keys[a.GetGroup()]
			if !ok {
				k.StreamPrefix, k.ConsumerGroup, _ = strings.Cut(a.GetGroup(), "/")
			}
			v.Groups = append(v.Groups, protocol.ClusterGroup{StreamPrefix: k.StreamPrefix, ConsumerGroup: k.ConsumerGroup,
				ActivationEpoch: a.GetActivationEpoch(), Members: int(a.GetMembers())})
		}
		sort.Slice(v.Groups, func(i, j int) bool {
			a, b := v.Groups[i], v.Groups[j]
			return a.StreamPrefix < b.StreamPrefix || (a.StreamPrefix == b.StreamPrefix && a.ConsumerGroup < b.ConsumerGroup)
		})
		out = append(out, v)
		if n.GetOwner() != "" {
			byOwner[n.GetOwner()] = v
		}
	}
	for _, r := range h.node.Registrations() {
		v, ok := byOwner[r.Owner]
		if !ok {
			v = &protocol.ClusterNode{NodeID: r.NodeID, Incarnation: incarnationOf(r.Owner), Address: r.Address, Groups: []protocol.ClusterGroup{}}
			v.Refusing = r.Refusing
			if r.Refusing {
				v.RefusingReason = "it registered after another node that shares the store without being in its cluster"
			}
			byOwner[r.Owner] = v
			out = append(out, v)
		}
		v.StartedAt, v.RenewedAt = stampStore(r.RegisteredAt), stampStore(r.RenewedAt)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].NodeID != out[j].NodeID {
			return out[i].NodeID < out[j].NodeID
		}
		return out[i].StartedAt < out[j].StartedAt
	})
	resp := protocol.ClusterResponse{NodeID: h.opts.NodeID, Nodes: make([]protocol.ClusterNode, 0, len(out))}
	for _, v := range out {
		resp.Nodes = append(resp.Nodes, *v)
	}
	return resp, nil
}

// incarnationOf is the incarnation part of an owner "nodeId/incarnation".
func incarnationOf(owner string) string {
	if i := strings.LastIndexByte(owner, '/'); i >= 0 {
		return owner[i+1:]
	}
	return owner
}

func stampStore(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
