package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Admin and routing handlers. Path and body arrive checked and decoded
// (typed.go: inputs.go, decodeBody); each checks the body's fields (400)
// before it calls the Service, and answers with the status SPEC §5 names
// (the route's routedocs.Op OK: routes.go).

// createStream: POST /coord/v1/streams/:streamPrefix → 201 CreateStreamResponse.
func (a *admin) createStream(c *fiber.Ctx, in *streamBody[protocol.CreateStreamRequest]) (protocol.CreateStreamResponse, error) {
	if err := edge.CreateStream(*in.req(), a.cfg.MaxShardCount); err != nil {
		return protocol.CreateStreamResponse{}, err
	}
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	return a.svc.CreateStream(ctx, in.StreamPrefix, *in.req())
}

// createGroup: POST /coord/v1/streams/:p/groups/:g {requestedBy, reason?}
// → 201 GroupResponse; 409 GROUP_ALREADY_EXISTS, 404 STREAM_NOT_FOUND,
// 429 LIMIT_EXCEEDED (limits.groups-per-stream).
func (a *admin) createGroup(c *fiber.Ctx, in *groupBody[protocol.CreateGroupRequest]) (protocol.GroupResponse, error) {
	if err := edge.CreateGroup(*in.req()); err != nil {
		return protocol.GroupResponse{}, err
	}
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	resp, err := a.svc.CreateGroup(ctx, in.StreamPrefix, in.ConsumerGroup, *in.req())
	return normalizeGroup(resp), err
}

// setAssignment: POST /coord/v1/streams/:p/groups/:g/assignment {assignment,
// requestedBy, reason?} → 200 GroupResponse; 404 GROUP_NOT_FOUND.
func (a *admin) setAssignment(c *fiber.Ctx, in *groupBody[protocol.SetAssignmentRequest]) (protocol.GroupResponse, error) {
	if err := edge.SetAssignment(*in.req()); err != nil {
		return protocol.GroupResponse{}, err
	}
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	resp, err := a.svc.SetAssignment(ctx, in.StreamPrefix, in.ConsumerGroup, *in.req())
	return normalizeGroup(resp), err
}

// getGroup: GET /coord/v1/streams/:p/groups/:g → GroupResponse.
func (a *admin) getGroup(c *fiber.Ctx, in *GroupPath) (protocol.GroupResponse, error) {
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	resp, err := a.svc.Group(ctx, in.StreamPrefix, in.ConsumerGroup)
	return normalizeGroup(resp), err
}

// deleteGroup: DELETE /coord/v1/streams/:p/groups/:g {requestedBy, reason,
// force?} → 200 DeleteGroupResponse; 409 GROUP_HAS_ACTIVE_MEMBERS.
func (a *admin) deleteGroup(c *fiber.Ctx, in *groupBody[protocol.DeleteGroupRequest]) (protocol.DeleteGroupResponse, error) {
	if err := edge.DeleteGroup(*in.req()); err != nil {
		return protocol.DeleteGroupResponse{}, err
	}
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	return a.svc.DeleteGroup(ctx, in.StreamPrefix, in.ConsumerGroup, *in.req())
}

// setRebalancing: POST /coord/v1/streams/:p/groups/:g/rebalancing {paused,
// requestedBy, reason?} → 200 GroupResponse (rebalancing, rebalancingPause);
// 404 GROUP_NOT_FOUND. Pausing a paused group keeps its first pause.
func (a *admin) setRebalancing(c *fiber.Ctx, in *groupBody[protocol.RebalancingRequest]) (protocol.GroupResponse, error) {
	if err := edge.Rebalancing(*in.req()); err != nil {
		return protocol.GroupResponse{}, err
	}
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	resp, err := a.svc.SetRebalancing(ctx, in.StreamPrefix, in.ConsumerGroup, *in.req())
	return normalizeGroup(resp), err
}

// producerRouting: GET …/producer-routing → ProducerRouting.
func (a *admin) producerRouting(c *fiber.Ctx, in *GroupPath) (protocol.ProducerRouting, error) {
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	resp, err := a.svc.ProducerRouting(ctx, in.StreamPrefix, in.ConsumerGroup)
	emptySlice(&resp.Shards)
	return resp, err
}

// scale: POST /coord/v1/streams/:p/scale {targetShardCount, requestedBy,
// reason} → 202 ScaleResponse; 409 ACTIVE_MIGRATION_EXISTS.
func (a *admin) scale(c *fiber.Ctx, in *streamBody[protocol.ScaleRequest]) (protocol.ScaleResponse, error) {
	if err := edge.Scale(*in.req(), a.cfg.MaxShardCount); err != nil {
		return protocol.ScaleResponse{}, err
	}
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	resp, err := a.svc.Scale(ctx, in.StreamPrefix, *in.req())
	emptySlice(&resp.AffectedConsumerGroups)
	emptySlice(&resp.Migrations)
	return resp, err
}

// migration: GET …/migrations/:reshardingId → Migration.
func (a *admin) migration(c *fiber.Ctx, in *MigrationPath) (protocol.Migration, error) {
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	return a.svc.Migration(ctx, in.StreamPrefix, in.ConsumerGroup, in.ReshardingID)
}

// rollback: POST …/migrations/:reshardingId/rollback {requestedBy, reason}
// → 202 Migration; 404 unknown, 422 ROLLBACK_NOT_ALLOWED.
func (a *admin) rollback(c *fiber.Ctx, in *migrationBody[protocol.RollbackRequest]) (protocol.Migration, error) {
	if err := edge.Rollback(*in.req()); err != nil {
		return protocol.Migration{}, err
	}
	ctx, cancel := a.reqCtx(c)
	defer cancel()
	return a.svc.Rollback(ctx, in.StreamPrefix, in.ConsumerGroup, in.ReshardingID, *in.req())
}

// normalizeGroup turns nil maps into {} so clients never see null summaries.
func normalizeGroup(g protocol.GroupResponse) protocol.GroupResponse {
	if g.Rebalancing == "" {
		g.Rebalancing = protocol.RebalancingActive
	}
	emptyMap(&g.TargetAssignmentSummary)
	emptyMap(&g.CurrentAssignmentSummary)
	return g
}

// emptySlice and emptyMap turn a nil slice or map into an empty one, so
// clients read [] and {} instead of null.
func emptySlice[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}

func emptyMap[K comparable, V any](m *map[K]V) {
	if *m == nil {
		*m = map[K]V{}
	}
}
