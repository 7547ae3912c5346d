package membersdk

import (
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
	case req.MemberEpoch == protocol.EpochLeave || req.MemberEpoch == protocol.EpochTemporaryLeave:
		f.owned[m] = released(req)
		delete(f.given, m)
		if len(f.owned[m]) == 0 {
			delete(f.owned, m)
			delete(f.epochs, m)
		}
		base.MemberEpoch = req.MemberEpoch
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
