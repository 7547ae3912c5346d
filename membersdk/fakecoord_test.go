package membersdk

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/stretchr/testify/require"
)

// fakeCoord is a small scripted coordinator: it keeps a target per member and
// hands a shard out only when no other member holds it — reported it owned,
// or was given it in its last answer — (revoke-before-assign), which is all
// the SDK relies on. Tests can take over
// any answer with script, or make a URL fail.
type fakeCoord struct {
	t    *testing.T
	mu   sync.Mutex
	srvs []*httptest.Server
	down []bool
	hits []int

	interval, lease, rebalance int64
	target                     map[string][]int
	owned                      map[string][]int // last reported (minus REVOKED)
	given                      map[string][]int // assignedShards of the last answer
	epochs                     map[string]int64
	reqs                       []loggedReq
	script                     func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool)
	httpStatus                 int // non-zero: answer every request with this HTTP status

	// Shard fences (FENCE.md), written like the coordinator does: before an
	// answer grants a shard, and cleared when a member stops holding it.
	rc         *redis.Client // nil until a member is configured (testConfig)
	noFence    bool          // behave like an older coordinator: write no fence
	fenceOwner map[int]string
	fenceLog   []fenceChange // every fence write, in order
}

// fenceChange is one fence write; at is when it had completed.
type fenceChange struct {
	shard int
	owner string
	token int64
	at    time.Time
}

// writeFence sets the fence of shard s (owner, token+1) and logs it. Called
// with f.mu held.
func (f *fakeCoord) writeFence(s int, owner string, epoch int64) error {
	ctx := context.Background()
	key := fenceKey(protocol.StreamKey(testStream, s), testGroup)
	var incr *redis.IntCmd
	_, err := f.rc.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "owner", owner, "epoch", epoch, "at", time.Now().UTC().Format(time.RFC3339Nano))
		incr = p.HIncrBy(ctx, key, "token", 1)
		return nil
	})
	if err != nil {
		return err
	}
	f.fenceOwner[s] = owner
	f.fenceLog = append(f.fenceLog, fenceChange{shard: s, owner: owner, token: incr.Val(), at: time.Now()})
	return nil
}

func (f *fakeCoord) fenceHistory() []fenceChange {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fenceChange(nil), f.fenceLog...)
}

type loggedReq struct {
	srv int
	at  time.Time
	req protocol.HeartbeatRequest
}

func newFakeCoord(t *testing.T, nURLs int) *fakeCoord {
	f := &fakeCoord{
		t: t, interval: 100, lease: 3000, rebalance: 2000,
		target: map[string][]int{}, owned: map[string][]int{}, given: map[string][]int{}, epochs: map[string]int64{},
		down: make([]bool, nURLs), hits: make([]int, nURLs), fenceOwner: map[int]string{},
	}
	for i := range nURLs {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.serve(i, w, r) }))
		t.Cleanup(srv.Close)
		f.srvs = append(f.srvs, srv)
	}
	return f
}

func (f *fakeCoord) urls() []string {
	out := make([]string, len(f.srvs))
	for i, s := range f.srvs {
		out[i] = s.URL
	}
	return out
}

func (f *fakeCoord) setTarget(member string, shards ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.target[member] = shards
}

func (f *fakeCoord) setDown(i int, down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down[i] = down
}

func (f *fakeCoord) setScript(s func(req protocol.HeartbeatRequest) (protocol.HeartbeatResponse, bool)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = s
}

func (f *fakeCoord) requests(member string) []protocol.HeartbeatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []protocol.HeartbeatRequest
	for _, l := range f.reqs {
		if l.req.MemberID == member {
			out = append(out, l.req)
		}
	}
	return out
}

func (f *fakeCoord) hitCount(i int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[i]
}

func (f *fakeCoord) lastRequest(member string) (protocol.HeartbeatRequest, bool) {
	r := f.requests(member)
	if len(r) == 0 {
		return protocol.HeartbeatRequest{}, false
	}
	return r[len(r)-1], true
}

func (f *fakeCoord) serve(i int, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hits[i]++
	if f.down[i] {
		http.Error(w, `{"status":"SERVICE_UNAVAILABLE","errorCode":"INTERNAL","message":"down"}`, http.StatusServiceUnavailable)
		return
	}
	if f.httpStatus != 0 {
		w.WriteHeader(f.httpStatus)
		_, _ = io.WriteString(w, `{"status":"UNAUTHORIZED","errorCode":"UNAUTHENTICATED","message":"no"}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req, err := protocol.DecodeHeartbeat(body)
	if err != nil {
		f.t.Errorf("fake coordinator: bad heartbeat body: %v: %s", err, body)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/members/"+req.MemberID+"/heartbeat") || r.Method != http.MethodPost {
		f.t.Errorf("fake coordinator: %s %s for member %s", r.Method, r.URL.Path, req.MemberID)
	}
	resp := f.handle(i, req)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// handle logs and answers one heartbeat (srv: the URL index, -1 for the
// mailbox). Called with f.mu held.
func (f *fakeCoord) handle(srv int, req protocol.HeartbeatRequest) protocol.HeartbeatResponse {
	f.reqs = append(f.reqs, loggedReq{srv: srv, at: time.Now(), req: req})
	resp := f.answer(req)
	if err := f.writeFences(req, resp); err != nil {
		// Durable before told: no grant without its fence.
		resp = protocol.HeartbeatResponse{Status: protocol.StatusRetry, Message: "fence write failed: " + err.Error()}
	}
	resp.ResponseTo = req.RequestID
	resp.MemberID = req.MemberID
	return resp
}

func (f *fakeCoord) answer(req protocol.HeartbeatRequest) protocol.HeartbeatResponse {
	base := protocol.HeartbeatResponse{
		Status: protocol.StatusOK, HeartbeatIntervalMs: f.interval, RebalanceTimeoutMs: f.rebalance,
		MemberLeaseTTLMs: f.lease, GroupEpoch: 1, AssignmentEpoch: 1, MetadataVersion: 1,
	}
	if f.script != nil {
		if resp, ok := f.script(req); ok {
			if resp.HeartbeatIntervalMs == 0 {
				resp.HeartbeatIntervalMs, resp.RebalanceTimeoutMs, resp.MemberLeaseTTLMs = f.interval, f.rebalance, f.lease
			}
			return resp
		}
	}
	m := req.MemberID
	switch {
	case req.MemberEpoch == protocol.EpochLeave:
		f.owned[m] = released(req)
		delete(f.given, m)
		if len(f.owned[m]) == 0 {
			delete(f.owned, m)
			delete(f.epochs, m)
		}
		base.MemberEpoch = protocol.EpochLeave
		return base
	case req.MemberEpoch == protocol.EpochJoin:
		if len(req.OwnedShards) != 0 {
			f.t.Errorf("fake coordinator: join of %s owns %v", m, req.OwnedShards)
		}
		f.epochs[m] = 1
	case f.epochs[m] == 0:
		base.Status = protocol.StatusUnknownMemberID
		return base
	}
	f.owned[m] = released(req)
	var assigned, pending []int
	for _, s := range f.target[m] {
		taken := false
		for _, held := range []map[string][]int{f.owned, f.given} {
			for other, shards := range held {
				if other != m && slices.Contains(shards, s) {
					taken = true
				}
			}
		}
		if taken {
			pending = append(pending, s)
		} else {
			assigned = append(assigned, s)
		}
	}
	f.given[m] = assigned
	base.MemberEpoch = f.epochs[m]
	base.Assignment = protocol.Assignment{AssignedShards: protocol.ShardIDs(assigned), PendingShards: protocol.ShardIDs(pending), MetadataVersion: 1}
	return base
}

// useRedis makes the fake coordinator fence shards in rc (the first client
// a test configures a member with).
func (f *fakeCoord) useRedis(rc redis.UniversalClient) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := rc.(*redis.Client); ok && f.rc == nil {
		f.rc = c
	}
}

// writeFences applies FENCE.md for one answer (called with f.mu held): every
// shard the answer assigns to the member gets owner=member and a new token
// unless the fence already names it; every shard whose fence names the member
// and that it neither is assigned nor still reports owned (draining) is
// cleared. UNKNOWN_MEMBER_ID and FENCED_MEMBER_EPOCH clear all of the
// member's shards; other failures change nothing.
func (f *fakeCoord) writeFences(req protocol.HeartbeatRequest, resp protocol.HeartbeatResponse) error {
	if f.rc == nil || f.noFence {
		return nil
	}
	m := req.MemberID
	keep := map[int]bool{}
	var grant []int
	switch resp.Status {
	case protocol.StatusOK:
		for _, s := range released(req) {
			keep[s] = true
		}
		if resp.MemberEpoch != protocol.EpochLeave {
			for _, s := range protocol.Indexes(resp.Assignment.AssignedShards) {
				keep[s] = true
				if f.fenceOwner[s] != m {
					grant = append(grant, s)
				}
			}
		}
	case protocol.StatusUnknownMemberID, protocol.StatusFencedMemberEpoch:
	default:
		return nil
	}
	set := func(s int, owner string) error { return f.writeFence(s, owner, resp.MemberEpoch) }
	for s, owner := range f.fenceOwner {
		if owner == m && !keep[s] {
			if err := set(s, ""); err != nil {
				return err
			}
		}
	}
	for _, s := range grant {
		if err := set(s, m); err != nil {
			return err
		}
	}
	return nil
}

// expire clears the fences a member holds as the coordinator would when its owner's
// lease expired (owner "", token+1), and forgets that member's holdings, so
// that the shard can be granted to someone else while the member is frozen.
func (f *fakeCoord) expire(member string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.epochs, member)
	delete(f.owned, member)
	delete(f.given, member)
	delete(f.target, member)
	for s, owner := range f.fenceOwner {
		if owner == member {
			require.NoError(f.t, f.writeFence(s, "", 0))
		}
	}
}

// released is what the member still holds: owned minus shards reported REVOKED.
func released(req protocol.HeartbeatRequest) []int {
	var out []int
	for _, s := range req.OwnedShards {
		revoked := false
		for _, r := range req.RevokingShards {
			if r.Shard.ShardIndex == s.ShardIndex && r.State == protocol.RevokeStateRevoked {
				revoked = true
			}
		}
		if !revoked {
			out = append(out, s.ShardIndex)
		}
	}
	return out
}

// --- Redis and consumer helpers ---

const (
	testStream = "orders"
	testGroup  = "workers"
)

// setupRedis starts redis-server and provisions shards with the group.
func setupRedis(t *testing.T, shards int) *redis.Client {
	t.Helper()
	rc := redistest.Start(t).Client()
	for i := range shards {
		require.NoError(t, rc.XGroupCreateMkStream(context.Background(), protocol.StreamKey(testStream, i), testGroup, "0").Err())
	}
	return rc
}

// events records consumer events.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) record(ev Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) has(typ EventType, member string, shard int) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.all {
		if ev.Type == typ && (member == "" || ev.MemberID == member) && (shard < 0 || ev.Shard == shard) {
			return true
		}
	}
	return false
}

func (e *events) find(typ EventType) []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Event
	for _, ev := range e.all {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func testConfig(f *fakeCoord, rc redis.UniversalClient, member string, ev *events) ConsumerConfig {
	f.useRedis(rc)
	return ConsumerConfig{
		CoordinatorURLs: f.urls(),
		StreamPrefix:    testStream,
		ConsumerGroup:   testGroup,
		MemberID:        member,
		MemberName:      "test",
		Redis:           rc,
		RequestTimeout:  time.Second,
		RetryInterval:   50 * time.Millisecond,
		BlockTimeout:    100 * time.Millisecond,
		RetryBackoff:    10 * time.Millisecond,
		OnEvent:         ev.record,
	}
}

// runConsumer starts c.Run and returns a stop function that cancels it and
// returns Run's error, and a channel that yields Run's error once it returned.
func runConsumer(t *testing.T, c *Consumer) (stop func() error, done <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	var runErr error
	go func() { runErr = c.Run(ctx); close(finished) }()
	out := make(chan error, 1)
	go func() { <-finished; out <- runErr }()
	stop = func() error {
		cancel()
		select {
		case <-finished:
			return runErr
		case <-time.After(15 * time.Second):
			t.Errorf("consumer %s did not stop", c.MemberID())
			return nil
		}
	}
	t.Cleanup(func() { _ = stop() })
	return stop, out
}

func pendingCount(t *testing.T, rc *redis.Client, shard int) int64 {
	t.Helper()
	p, err := rc.XPending(context.Background(), protocol.StreamKey(testStream, shard), testGroup).Result()
	require.NoError(t, err)
	return p.Count
}

func xadd(t *testing.T, rc *redis.Client, shard int, values ...any) string {
	t.Helper()
	id, err := rc.XAdd(context.Background(), &redis.XAddArgs{Stream: protocol.StreamKey(testStream, shard), Values: values}).Result()
	require.NoError(t, err)
	return id
}

func ownedIn(req protocol.HeartbeatRequest) []int {
	out := protocol.Indexes(req.OwnedShards)
	slices.Sort(out)
	return out
}

// eventually waits for cond with a short poll.
func eventually(t *testing.T, cond func() bool, timeout time.Duration, msg string, args ...any) {
	t.Helper()
	require.Eventually(t, cond, timeout, 10*time.Millisecond, append([]any{msg}, args...)...)
}
