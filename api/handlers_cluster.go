package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// cluster: GET /coord/v1/monitoring/cluster, READ. Every node this node
// knows of, its incarnation, address, start time, whether it refuses to
// serve, and the groups it hosts.
func (m *monitoring) cluster(*fiber.Ctx, *noInput) (protocol.ClusterResponse, error) {
	ctx, cancel := m.ctx()
	defer cancel()
	resp, err := m.svc.Cluster(ctx)
	if err != nil {
		return resp, err
	}
	emptySlice(&resp.Nodes)
	return resp, nil
}
