package host

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/wire"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// nodeInfoActor answers NodeInfoRequest with this node's group activations.
type nodeInfoActor struct{ h *Host }

func (a *nodeInfoActor) Receive(ctx actor.Context) {
	req, ok := ctx.Message().(*wire.NodeInfoRequest)
	if !ok {
		return
	}
	if req.GetLight() {
		ctx.Respond(a.h.nodeMembers())
		return
	}
	// The full view asks every local group actor: built off this actor, so that light
	// requests (a leaving peer polls them with a short timeout) never wait behind it.
	sender, root := ctx.Sender(), ctx.ActorSystem().Root
	go func() { root.Send(sender, a.h.nodeInfo()) }()
}

// nodeMembers is the part of NodeInfo that needs no group actor: who this
// node is and which members it sees.
func (h *Host) nodeMembers() *wire.NodeInfo {
	out := &wire.NodeInfo{NodeId: h.opts.NodeID, Owner: h.node.Owner(), Address: h.system.Address(), Refusing: h.node.Refusing()}
	for _, m := range h.clusterMembers() {
		out.MemberAddresses = append(out.MemberAddresses, m.Address())
	}
	return out
}

// clusterView is the node registry's view of this node's cluster: its own
// advertised address and the addresses of the members it sees.
func (h *Host) clusterView() (string, []string) {
	if !h.router.Clustered() {
		return h.system.Address(), nil
	}
	var members []string
	for _, m := range h.clusterMembers() {
		members = append(members, m.Address())
	}
	return h.system.Address(), members
}

// nodeInfo is this node's part of the cluster-wide debug view.
func (h *Host) nodeInfo() *wire.NodeInfo {
	return h.nodeInfoOf(h.router.LocalDebug(h.opts.RequestTimeout / 2))
}

// nodeInfoOf summarizes this node's group states for the cluster view.
func (h *Host) nodeInfoOf(states []*groupmsg.DebugState) *wire.NodeInfo {
	out := h.nodeMembers()
	for _, d := range states {
		out.Activations = append(out.Activations, &wire.Activation{Group: d.Group, Actor: d.Actor,
			ActivationEpoch: d.ActivationEpoch, Members: int32(len(d.Members))})
	}
	return out
}

// clusterHealth is this node's view of the cluster (nil in single mode).
func (h *Host) clusterHealth() *protocol.ClusterHealth {
	if !h.router.Clustered() {
		return nil
	}
	out := &protocol.ClusterHealth{
		Name: h.opts.Cluster.Name, Provider: h.opts.Cluster.ProviderName,
		Self:    protocol.ClusterMember{ID: h.system.ID, Address: h.system.Address()},
		Members: []protocol.ClusterMember{}, Blocked: []string{},
	}
	for _, m := range h.clusterMembers() {
		out.Members = append(out.Members, protocol.ClusterMember{ID: m.ID, Address: m.Address()})
	}
	sort.Slice(out.Members, func(i, j int) bool { return out.Members[i].Address < out.Members[j].Address })
	out.Blocked = append(out.Blocked, h.blockedMembers()...)
	return out
}

// clusterNodes asks every cluster member's info actor which group
// activations it hosts, waiting at most timeout; self is this node's own
// part, already built.
func (h *Host) clusterNodes(self *wire.NodeInfo, timeout time.Duration) []*wire.NodeInfo {
	members := h.clusterMembers()
	out := make([]*wire.NodeInfo, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		if m.Address() == h.system.Address() {
			out[i] = self
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pid := actor.NewPID(m.Address(), nodeInfoName)
			res, err := h.system.Root.RequestFuture(pid, &wire.NodeInfoRequest{}, max(timeout, time.Millisecond)).Result()
			if info, ok := res.(*wire.NodeInfo); ok && err == nil {
				out[i] = info
				return
			}
			out[i] = &wire.NodeInfo{Address: m.Address(), Refusing: fmt.Sprintf("did not answer: %v", err)}
		}()
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}
