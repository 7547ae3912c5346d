package api

import (
	"context"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"github.com/redisstream/coordinator/api/auth"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Monitoring, debug and metrics handlers: read-only, never create a group.

// readyDown is the 503 body of GET /monitoring/ready when the coordinator
// is DOWN: the health fields (so probes read one shape) plus errorCode and
// message.
type readyDown struct {
	protocol.HealthResponse
	ErrorCode string `json:"errorCode"`
	Message   string `json:"message"`
}

// healthNow asks the service for health, filling the coordinator id and
// treating an empty or unknown status as DOWN.
func (m *monitoring) healthNow() protocol.HealthResponse {
	ctx, cancel := m.ctx()
	defer cancel()
	h := m.svc.Health(ctx)
	if h.CoordinatorID == "" {
		h.CoordinatorID = m.cfg.CoordinatorID
	}
	switch h.Status {
	case protocol.HealthUp, protocol.HealthDegraded, protocol.HealthDown:
	default:
		h.Status = protocol.HealthDown
	}
	return h
}

// health: GET /coord/v1/monitoring/health, public. Always 200, with UP,
// DEGRADED or DOWN in the body and the redis and loop statuses, as the
// reference answers it (dashboards read the body). Probes and load
// balancers use /monitoring/ready, which says it with the status code.
func (m *monitoring) health(*fiber.Ctx, *noInput) (protocol.HealthResponse, error) {
	return m.healthNow(), nil
}

// ready: GET /coord/v1/monitoring/ready, public. 200 when UP or DEGRADED
// (Redis unreachable: members keep their shards within their leases and are
// told RETRY, so taking the node out of service would only make them
// self-fence sooner), 503 while Redis refuses this node's writes (READ_ONLY:
// another node may reach the new primary), 503 when DOWN (the actor loop does not answer, or
// the node refuses to serve because another node shares its store without
// forming one cluster with it), and 503 SHUTTING_DOWN while draining
// (drain.go).
func (m *monitoring) ready(c *fiber.Ctx) error {
	h := m.healthNow()
	if m.draining() {
		return c.Status(http.StatusServiceUnavailable).JSON(readyDown{HealthResponse: h, ErrorCode: protocol.CodeShuttingDown,
			Message: "coordinator is shutting down: it takes no new work and hands its groups over"})
	}
	if h.Redis == protocol.RedisReadOnly {
		return c.Status(http.StatusServiceUnavailable).JSON(readyDown{HealthResponse: h, ErrorCode: protocol.CodeStoreUnavailable,
			Message: "coordinator is not ready: Redis answers but refuses its writes (" + h.RedisReason + "): it is a replica now, " +
				"or has too few replicas; send members to a node that can write (with redis.sentinel the coordinator follows a failover by itself)"})
	}
	if h.Status != protocol.HealthDown {
		return c.JSON(h)
	}
	msg := "coordinator is not ready (redis " + h.Redis + ", loop " + h.Loop + "): its actor loop does not answer; it will not serve members until it does"
	if h.Loop != protocol.HealthDown && h.NodeConflict != nil && h.NodeConflict.Refusing {
		msg = "coordinator is not ready: " + h.NodeConflict.Reason
	}
	return c.Status(http.StatusServiceUnavailable).JSON(readyDown{HealthResponse: h, ErrorCode: protocol.CodeUnavailable, Message: msg})
}

// compatibility: GET /coord/v1/monitoring/compatibility: the coordination
// (protocol) versions this build accepts, in the reference's shape, plus ours.
func (m *monitoring) compatibility(*fiber.Ctx, *noInput) (protocol.CompatibilityResponse, error) {
	return protocol.CompatibilityResponse{
		CurrentCoordinationVersion:    protocol.Version,
		SupportedCoordinationVersions: protocol.VersionRange{Min: protocol.Version, Max: protocol.Version},
		CoordinationVersions: []protocol.CoordinationVersion{{
			Version:               protocol.Version,
			Status:                "ACTIVE",
			IntroducedIn:          protocol.ReleaseVersion{Major: 0, Minor: 1, Patch: 0},
			MinimumSupportedUntil: protocol.ReleaseVersion{Major: 1, Minor: 0, Patch: 0},
		}},
		SupportedProtocolVersions: []int{protocol.Version},
		PreferredProtocolVersion:  protocol.Version,
		ServerVersion:             m.cfg.ServerVersion,
	}, nil
}

// groups: GET /coord/v1/monitoring/groups → {groups:[GroupResponse]}.
func (m *monitoring) groups(c *fiber.Ctx, _ *noInput) (protocol.GroupsResponse, error) {
	ctx, cancel := m.ctx()
	defer cancel()
	resp, err := m.svc.Groups(ctx)
	if err != nil {
		return resp, err
	}
	streams, groups := auth.RequestScope(c)
	resp.Groups = auth.ScopedGroups(streams, groups, resp.Groups) // scopefilter.go
	emptySlice(&resp.Groups)
	for i := range resp.Groups {
		resp.Groups[i] = normalizeGroup(resp.Groups[i])
	}
	return resp, nil
}

// monitorRead is the typed handler of a group read: it calls get with the
// checked :streamPrefix/:consumerGroup and returns its result (after fix,
// if any).
func monitorRead[T any](newCtx func() (context.Context, context.CancelFunc), get func(ctx context.Context, p, g string) (T, error), fix func(*T)) func(*fiber.Ctx, *GroupPath) (T, error) {
	return func(_ *fiber.Ctx, in *GroupPath) (T, error) {
		ctx, cancel := newCtx()
		defer cancel()
		v, err := get(ctx, in.StreamPrefix, in.ConsumerGroup)
		if err == nil && fix != nil {
			fix(&v)
		}
		return v, err
	}
}

func (m *monitoring) monitorGroup() func(*fiber.Ctx, *GroupPath) (protocol.GroupResponse, error) {
	return monitorRead(m.ctx, m.svc.MonitorGroup, func(g *protocol.GroupResponse) { *g = normalizeGroup(*g) })
}

func (m *monitoring) members() func(*fiber.Ctx, *GroupPath) (protocol.MembersResponse, error) {
	return monitorRead(m.ctx, m.svc.Members, func(r *protocol.MembersResponse) {
		emptySlice(&r.Members)
	})
}

func (m *monitoring) assignments() func(*fiber.Ctx, *GroupPath) (protocol.AssignmentsResponse, error) {
	return monitorRead(m.ctx, m.svc.Assignments, func(a *protocol.AssignmentsResponse) {
		emptyMap(&a.TargetAssignment)
		emptyMap(&a.CurrentAssignments)
		emptyMap(&a.RevokeProgress)
		emptySlice(&a.RevokeDetails)
		emptySlice(&a.InvariantViolations)
	})
}

func (m *monitoring) consumption() func(*fiber.Ctx, *GroupPath) (protocol.ConsumptionResponse, error) {
	return monitorRead(m.ctx, m.svc.Consumption, func(r *protocol.ConsumptionResponse) {
		emptySlice(&r.Rows)
	})
}

func (m *monitoring) migrations() func(*fiber.Ctx, *GroupPath) (protocol.MigrationsResponse, error) {
	return monitorRead(m.ctx, m.svc.Migrations, func(r *protocol.MigrationsResponse) {
		emptySlice(&r.Migrations)
	})
}

// debugActors: GET /debug/actors → live actor state on this node.
func (m *monitoring) debugActors(*fiber.Ctx, *noInput) (any, error) {
	ctx, cancel := m.ctx()
	defer cancel()
	return m.svc.DebugActors(ctx)
}

// debugGroup: GET /debug/streams/:p/groups/:g → one group's live actor state.
func (m *monitoring) debugGroup() func(*fiber.Ctx, *GroupPath) (any, error) {
	return monitorRead(m.ctx, m.svc.DebugGroup, nil)
}

// metricsHandler serves the Prometheus registry.
func (m *monitoring) metricsHandler() fiber.Handler {
	return adaptor.HTTPHandler(m.metrics.Handler())
}
