package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// DebugNode is the live actor state of this node.
type DebugNode struct {
	NodeID string `json:"nodeId"`
	// Owner is this process's incarnation as recorded in the store.
	Owner     string                 `json:"owner"`
	StateLost *protocol.StateLost    `json:"stateLost,omitempty"`
	Groups    []*groupmsg.DebugState `json:"groups"`
	// Cluster lists, for every node of the cluster, which group activations
	// it hosts and with which activation epoch (absent for provider single).
	Cluster []ClusterNodeView `json:"cluster,omitempty"`
}

// ClusterNodeView is one node's activations as that node reports them.
type ClusterNodeView struct {
	NodeID      string           `json:"nodeId"`
	Owner       string           `json:"owner"`
	Address     string           `json:"address"`
	Refusing    string           `json:"refusing,omitempty"`
	Activations []ActivationView `json:"activations"`
}

// ActivationView is one group activation on a node.
type ActivationView struct {
	Group           string `json:"group"`
	ActivationEpoch int64  `json:"activationEpoch"`
	Members         int    `json:"members"`
	Actor           string `json:"actor"`
}

// DebugActors shows every group actor running on this node.
func (h Debugger) DebugActors(ctx context.Context) (any, error) {
	out := DebugNode{NodeID: h.opts.NodeID, Owner: h.node.Owner(), StateLost: h.node.LossReport(h.opts.Now()), Groups: h.router.LocalDebug(h.router.Within(ctx) / 2)}
	if h.router.Clustered() {
		for _, n := range h.views.Nodes(h.views.NodeInfo(out.Groups), h.router.Within(ctx)) {
			v := ClusterNodeView{NodeID: n.GetNodeId(), Owner: n.GetOwner(), Address: n.GetAddress(), Refusing: n.GetRefusing(), Activations: []ActivationView{}}
			for _, a := range n.GetActivations() {
				v.Activations = append(v.Activations, ActivationView{Group: a.GetGroup(), ActivationEpoch: a.GetActivationEpoch(), Members: int(a.GetMembers()), Actor: a.GetActor()})
			}
			out.Cluster = append(out.Cluster, v)
		}
	}
	return out, nil
}

// DebugGroup shows one group actor if it runs on this node.
func (h Debugger) DebugGroup(ctx context.Context, streamPrefix, groupName string) (any, error) {
	key := persistence.GroupKey{StreamPrefix: streamPrefix, ConsumerGroup: groupName}
	if h.router.Clustered() {
		// Forwarded to the grain, wherever it runs; a group that is not stored must not be
		// created by looking at it.
		if stored, err := h.groupStored(ctx, key); err != nil || !stored {
			return nil, errors.Join(coordinator.ErrGroupNotFound, fmt.Errorf("group %s is not stored: %v", key, err))
		}
	} else if _, ok := h.router.Active(key); !ok {
		return nil, errors.Join(coordinator.ErrGroupNotFound, errors.New("no actor for group "+key.String()+" on node "+h.opts.NodeID))
	}
	d, err := h.router.Debug(ctx, key)
	if err != nil {
		return nil, err
	}
	return d, nil
}
