package harness

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

var requestSeq atomic.Int64

// Member is a simulated member that speaks protocol v1 over real HTTP (or
// Via another Transport) and follows the rules faithfully: it owns what it
// was assigned, and keeps a revoked shard (listed as DRAINING) until the
// test releases it.
type Member struct {
	C *Client
	// Via, when set, carries the heartbeats instead of C (e.g. a Mailbox).
	Via      Transport
	Prefix   string
	Group    string
	ID       string
	Epoch    int64
	Metadata int64
	Owned    map[int]bool
	Draining map[int]bool // revoked by the coordinator, not yet released by the test
	Last     protocol.HeartbeatResponse
}

// NewMember returns a member that has not joined yet.
func NewMember(c *Client, prefix, group, id string) *Member {
	return &Member{C: c, Prefix: prefix, Group: group, ID: id, Owned: map[int]bool{}, Draining: map[int]bool{}}
}

// Request builds the member's next heartbeat request.
func (m *Member) Request() protocol.HeartbeatRequest {
	req := protocol.HeartbeatRequest{
		ProtocolVersion: 1, RequestID: fmt.Sprintf("req-%d", requestSeq.Add(1)), MemberID: m.ID, MemberName: "sim",
		MemberEpoch: m.Epoch, MetadataVersion: m.Metadata,
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4},
		OwnedShards:             protocol.ShardIDs(sorted(m.Owned)),
		RevokingShards:          []protocol.RevokingShard{},
	}
	for _, s := range sorted(m.Draining) {
		req.RevokingShards = append(req.RevokingShards, protocol.RevokingShard{Shard: protocol.ShardID{ShardIndex: s}, State: protocol.RevokeStateDraining, InFlight: 1})
	}
	return req
}

// Send sends req as this member and returns the response (HTTP 200 required).
func (m *Member) Send(t testing.TB, req protocol.HeartbeatRequest) protocol.HeartbeatResponse {
	t.Helper()
	status, raw, err := m.Exchange(req)
	if err != nil {
		t.Fatalf("%s: heartbeat %s over %s: %v", m.ID, req.RequestID, m.transport().Name(), err)
	}
	if status != 200 {
		t.Fatalf("%s: heartbeat %s over %s: status %d, want 200: %s", m.ID, req.RequestID, m.transport().Name(), status, raw)
	}
	var resp protocol.HeartbeatResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatalf("%s: heartbeat %s over %s: answer %s: %v", m.ID, req.RequestID, m.transport().Name(), raw, err)
	}
	return resp
}

// Exchange sends req (JSON-encoded) as this member's heartbeat and returns
// the HTTP status and body of the answer, whatever they are.
func (m *Member) Exchange(req protocol.HeartbeatRequest) (int, []byte, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return 0, nil, err
	}
	return m.transport().Heartbeat(m.Prefix, m.Group, m.ID, body)
}

func (m *Member) transport() Transport {
	if m.Via != nil {
		return m.Via
	}
	return m.C
}

// Beat sends the member's heartbeat and applies the response like a
// well-behaved member: on OK it starts assigned shards and moves shards that
// are no longer assigned to Draining; on FENCED/UNKNOWN it drops everything
// and resets its epoch to 0.
func (m *Member) Beat(t testing.TB) protocol.HeartbeatResponse {
	t.Helper()
	resp := m.Send(t, m.Request())
	m.Apply(resp)
	return resp
}

// Apply updates the member's view from a response.
func (m *Member) Apply(resp protocol.HeartbeatResponse) {
	m.Last = resp
	switch resp.Status {
	case protocol.StatusOK, protocol.StatusRevokePending, protocol.StatusSyncMetadata:
		m.Epoch = resp.MemberEpoch
		m.Metadata = resp.MetadataVersion
		assigned := map[int]bool{}
		for _, s := range resp.Assignment.AssignedShards {
			assigned[s.ShardIndex] = true
		}
		for s := range m.Owned {
			if !assigned[s] {
				delete(m.Owned, s)
				m.Draining[s] = true
			}
		}
		for s := range m.Draining {
			if assigned[s] {
				delete(m.Draining, s)
				m.Owned[s] = true
			}
		}
		if resp.Status == protocol.StatusOK {
			for s := range assigned {
				m.Owned[s] = true
			}
		}
	case protocol.StatusFencedMemberEpoch, protocol.StatusUnknownMemberID:
		m.Epoch = 0
		m.Owned = map[int]bool{}
		m.Draining = map[int]bool{}
	}
}

// Release finishes draining every revoked shard.
func (m *Member) Release() { m.Draining = map[int]bool{} }

// Shards returns the shards the member reads now.
func (m *Member) Shards() []int { return sorted(m.Owned) }

// Reading reports whether the member reads or drains shard s.
func (m *Member) Reading(s int) bool { return m.Owned[s] || m.Draining[s] }

func sorted(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Ints(out)
	return out
}
