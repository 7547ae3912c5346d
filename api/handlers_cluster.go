package api

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// ClusterService is implemented by a Service that can list the coordinator
// nodes and the groups each hosts (actors/host). A Service without it
// answers GET /coord/v1/monitoring/cluster with 501.
type ClusterService interface {
	Cluster(ctx context.Context) (protocol.ClusterResponse, error)
}

// cluster: GET /coord/v1/monitoring/cluster, READ. Every node this node
// knows of, its incarnation, address, start time, whether it refuses to
// serve, and the groups it hosts.
func (s *Server) cluster(c *fiber.Ctx) error {
	cs, ok := s.svc.(ClusterService)
	if !ok {
		return errors.Join(ErrNotImplemented, errors.New("this coordinator cannot list its cluster's nodes"))
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
