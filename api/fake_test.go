package api

import (
	"context"
	"sync"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// fakeService records calls and answers with canned values or err.
type fakeService struct {
	mu     sync.Mutex
	calls  []string
	err    error // returned by every error-returning method when set
	health protocol.HealthResponse
	hb     func(p, g, m string, req protocol.HeartbeatRequest) protocol.HeartbeatResponse
	last   any  // last request body seen
	quiet  bool // record nothing (benchmarks)
	// requestID is the request id the last CreateGroup call's context carried.
	requestID string
	gens      map[string]int64 // token generations (fake_tokens_test.go)
}

func newFake() *fakeService {
	return &fakeService{health: protocol.HealthResponse{Status: "UP", CoordinatorID: "node-1", Redis: "UP", Loop: "UP"}}
}

func (f *fakeService) record(name string, body any) {
	if f.quiet {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
	f.last = body
}

func (f *fakeService) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeService) Heartbeat(_ context.Context, p, g, m string, req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, error) {
	if !f.quiet {
		f.record("Heartbeat "+p+"/"+g+"/"+m, req)
	}
	if f.err != nil {
		return protocol.HeartbeatResponse{}, f.err
	}
	if f.hb != nil {
		return f.hb(p, g, m, req), nil
	}
	return protocol.HeartbeatResponse{
		ResponseTo: req.RequestID, Status: protocol.StatusOK, MemberID: req.MemberID, MemberEpoch: 1,
		HeartbeatIntervalMs: 3000, RebalanceTimeoutMs: 60000, MemberLeaseTTLMs: 15000,
		GroupEpoch: 1, AssignmentEpoch: 1, MetadataVersion: 1,
		Assignment: protocol.Assignment{AssignedShards: protocol.ShardIDs([]int{0, 1}), PendingShards: []protocol.ShardID{}, MetadataVersion: 1},
	}, nil
}

func (f *fakeService) CreateStream(_ context.Context, p string, req protocol.CreateStreamRequest) (protocol.CreateStreamResponse, error) {
	f.record("CreateStream "+p, req)
	n := 4
	if req.InitialShardCount != nil {
		n = *req.InitialShardCount
	}
	return protocol.CreateStreamResponse{StreamPrefix: p, ShardCount: n, MetadataVersion: 1}, f.err
}

func (f *fakeService) group(p, g string) protocol.GroupResponse {
	return protocol.GroupResponse{StreamPrefix: p, ConsumerGroup: g, State: protocol.GroupStable, GroupEpoch: 3, AssignmentEpoch: 3, MetadataVersion: 1, ShardCount: 4}
}

func (f *fakeService) Group(_ context.Context, p, g string) (protocol.GroupResponse, error) {
	f.record("Group "+p+"/"+g, nil)
	return f.group(p, g), f.err
}

func (f *fakeService) CreateGroup(ctx context.Context, p, g string, req protocol.CreateGroupRequest) (protocol.GroupResponse, error) {
	f.record("CreateGroup "+p+"/"+g, req)
	f.mu.Lock()
	f.requestID = coordinator.RequestIDFrom(ctx)
	f.mu.Unlock()
	return f.group(p, g), f.err
}

func (f *fakeService) DeleteStream(_ context.Context, p string, req protocol.DeleteStreamRequest) (protocol.DeleteStreamResponse, error) {
	f.record("DeleteStream "+p, req)
	return protocol.DeleteStreamResponse{StreamPrefix: p, Deleted: true}, f.err
}

func (f *fakeService) DeleteGroup(_ context.Context, p, g string, req protocol.DeleteGroupRequest) (protocol.DeleteGroupResponse, error) {
	f.record("DeleteGroup "+p+"/"+g, req)
	return protocol.DeleteGroupResponse{StreamPrefix: p, ConsumerGroup: g, Deleted: true}, f.err
}

func (f *fakeService) SetAssignment(_ context.Context, p, g string, req protocol.SetAssignmentRequest) (protocol.GroupResponse, error) {
	f.record("SetAssignment "+p+"/"+g, req)
	resp := f.group(p, g)
	resp.Assignment = req.Assignment
	return resp, f.err
}

func (f *fakeService) ProducerRouting(_ context.Context, p, g string) (protocol.ProducerRouting, error) {
	f.record("ProducerRouting "+p+"/"+g, nil)
	return protocol.ProducerRouting{StreamPrefix: p, ConsumerGroup: g, MetadataVersion: 1, ShardCount: 1,
		StreamKeyPattern: p + ":{shardIndex}", Shards: []protocol.RouteShard{{ShardIndex: 0, StreamKey: p + ":0", RedisSlot: protocol.RedisSlot(p + ":0")}}}, f.err
}

func (f *fakeService) Scale(_ context.Context, p string, req protocol.ScaleRequest) (protocol.ScaleResponse, error) {
	f.record("Scale "+p, req)
	return protocol.ScaleResponse{StreamPrefix: p, TargetShardCount: *req.TargetShardCount, AffectedConsumerGroups: []string{"g"}}, f.err
}

func (f *fakeService) Migration(_ context.Context, p, g, id string) (protocol.Migration, error) {
	f.record("Migration "+p+"/"+g+"/"+id, nil)
	return protocol.Migration{ReshardingID: id, FromShardCount: 4, ToShardCount: 8, State: protocol.MigrationActive}, f.err
}

func (f *fakeService) StreamMigrations(_ context.Context, p string) (protocol.MigrationsResponse, error) {
	f.record("StreamMigrations "+p, nil)
	return protocol.MigrationsResponse{}, f.err
}

func (f *fakeService) StreamMigration(_ context.Context, p, id string) (protocol.Migration, error) {
	f.record("StreamMigration "+p+"/"+id, nil)
	return protocol.Migration{ReshardingID: id, FromShardCount: 4, ToShardCount: 8, State: protocol.MigrationActive}, f.err
}

func (f *fakeService) StreamRollback(_ context.Context, p, id string, req protocol.RollbackRequest) (protocol.Migration, error) {
	f.record("StreamRollback "+p+"/"+id, req)
	return protocol.Migration{ReshardingID: id, FromShardCount: 4, ToShardCount: 8, State: protocol.MigrationRollingBack}, f.err
}

func (f *fakeService) Rollback(_ context.Context, p, g, id string, req protocol.RollbackRequest) (protocol.Migration, error) {
	f.record("Rollback "+p+"/"+g+"/"+id, req)
	return protocol.Migration{ReshardingID: id, FromShardCount: 4, ToShardCount: 8, State: protocol.MigrationRollingBack}, f.err
}

func (f *fakeService) Health(context.Context) protocol.HealthResponse {
	f.record("Health", nil)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.health
}

func (f *fakeService) Groups(context.Context) (protocol.GroupsResponse, error) {
	f.record("Groups", nil)
	return protocol.GroupsResponse{Groups: []protocol.GroupResponse{f.group("orders", "g")}}, f.err
}

func (f *fakeService) Streams(context.Context) (protocol.StreamsResponse, error) {
	f.record("Streams", nil)
	return protocol.StreamsResponse{Streams: []protocol.StreamView{{StreamPrefix: "orders", ShardCount: 4, ConsumedShardCount: 4, MetadataVersion: 1}}}, f.err
}

func (f *fakeService) Stream(_ context.Context, p string) (protocol.StreamView, error) {
	f.record("Stream "+p, nil)
	return protocol.StreamView{StreamPrefix: p, ShardCount: 4, ConsumedShardCount: 4, MetadataVersion: 1}, f.err
}

func (f *fakeService) MonitorGroup(_ context.Context, p, g string) (protocol.GroupResponse, error) {
	f.record("MonitorGroup "+p+"/"+g, nil)
	return f.group(p, g), f.err
}

func (f *fakeService) Members(_ context.Context, p, g string) (protocol.MembersResponse, error) {
	f.record("Members "+p+"/"+g, nil)
	return protocol.MembersResponse{Members: []protocol.MemberView{{MemberID: "m1", State: protocol.MemberActive, MemberEpoch: 3}}}, f.err
}

func (f *fakeService) Assignments(_ context.Context, p, g string) (protocol.AssignmentsResponse, error) {
	f.record("Assignments "+p+"/"+g, nil)
	return protocol.AssignmentsResponse{TargetAssignment: map[string][]protocol.ShardID{"m1": protocol.ShardIDs([]int{0})}}, f.err
}

func (f *fakeService) Consumption(_ context.Context, p, g string) (protocol.ConsumptionResponse, error) {
	f.record("Consumption "+p+"/"+g, nil)
	return protocol.ConsumptionResponse{}, f.err
}

func (f *fakeService) Migrations(_ context.Context, p, g string) (protocol.MigrationsResponse, error) {
	f.record("Migrations "+p+"/"+g, nil)
	return protocol.MigrationsResponse{}, f.err
}

func (f *fakeService) DebugActors(context.Context) (any, error) {
	f.record("DebugActors", nil)
	return map[string]any{"groups": []string{"orders/g"}}, f.err
}

func (f *fakeService) DebugGroup(_ context.Context, p, g string) (any, error) {
	f.record("DebugGroup "+p+"/"+g, nil)
	return map[string]any{"group": p + "/" + g}, f.err
}

var _ coordinator.Service = (*fakeService)(nil)

// setErr sets the error every error-returning method answers with; under the
// lock, because a login's background token-generation read takes it too.
func (f *fakeService) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}
