package api

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/protocol"
	"github.com/redisstream/coordinator/coordinator"
)

// cluster: GET /coord/v1/monitoring/cluster, READ. Every node this node
// knows of, its incarnation, address, start time, whether it refuses to
// serve, and the groups it hosts. A Service without
// coordinator.ClusterService (actors/host has it) answers 501.
func (s *Server) cluster(c *fiber.Ctx) error {
	cs, ok := s.svc.(coordinator.ClusterService)
	if !ok {
		return errors.Join(coordinator.ErrNotImplemented, errors.New("this coordinator cannot list its cluster's nodes"))
	}
	ctx, cancel := s.ctx()
	defer cancel()
	resp, err := cs.Cluster(ctx)
	if err != nil {
		return err
	}
	if resp.Nodes == nil {
		resp.Nodes = []protocol.ClusterNode{}
	}
	return c.JSON(resp)
}
