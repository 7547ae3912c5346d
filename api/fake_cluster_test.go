package api

import (
	"context"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (f *fakeService) Cluster(context.Context) (protocol.ClusterResponse, error) {
	f.record("Cluster", nil)
	return protocol.ClusterResponse{NodeID: "n1", Nodes: []protocol.ClusterNode{{NodeID: "n1", Incarnation: "abc", Self: true, InCluster: true,
		Groups: []protocol.ClusterGroup{{StreamPrefix: "orders", ConsumerGroup: "workers", ActivationEpoch: 1}}}}}, f.err
}
