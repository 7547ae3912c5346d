package node

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// quickRules are short timings, as the host's tests use.
var quickRules = model.Config{HeartbeatInterval: 100 * time.Millisecond, LeaseTTL: 600 * time.Millisecond,
	RebalanceTimeout: time.Second, Retention: time.Hour}

// conflictMetrics records NodeConflicts reports.
type conflictMetrics struct {
	rounds   atomic.Int64
	peers    atomic.Int64
	refusing atomic.Bool
	refused  atomic.Bool // refusing was reported at least once
}

func (m *conflictMetrics) StateLost()     {}
func (m *conflictMetrics) StoreReadOnly() {}
func (m *conflictMetrics) NodeConflicts(peers int, refusing bool) {
	m.rounds.Add(1)
	m.peers.Store(int64(peers))
	m.refusing.Store(refusing)
	if refusing {
		m.refused.Store(true)
	}
}

// A peer is a conflict unless its advertised address is in this node's
// cluster view; with no view (single) every other node id is one.
func TestConflictingPeers(t *testing.T) {
	r := &registry{n: New(Options{}), grace: time.Second}
	at := time.Unix(1000, 0)
	self := persistence.NodeRegistration{Owner: "n1/x", NodeID: "n1", Address: "10.0.0.1:4020", RegisteredAt: at, RenewedAt: at.Add(time.Minute)}
	members := map[string]bool{"10.0.0.1:4020": true, "10.0.0.2:4020": true}
	for _, tc := range []struct {
		name    string
		peer    persistence.NodeRegistration
		members map[string]bool
		want    bool
	}{
		{"cluster member", persistence.NodeRegistration{Owner: "n2/y", NodeID: "n2", Address: "10.0.0.2:4020"}, members, false},
		{"not in the view", persistence.NodeRegistration{Owner: "n3/y", NodeID: "n3", Address: "10.0.0.3:4020"}, members, true},
		{"single node next to a cluster", persistence.NodeRegistration{Owner: "n3/y", NodeID: "n3"}, members, true},
		{"single next to single", persistence.NodeRegistration{Owner: "n3/y", NodeID: "n3"}, nil, true},
		{"itself", self, nil, false},
		{"previous incarnation (stopped renewing before this one registered)",
			persistence.NodeRegistration{Owner: "n1/old", NodeID: "n1", RenewedAt: at.Add(-time.Millisecond)}, nil, false},
		{"same node id, renewing now", persistence.NodeRegistration{Owner: "n1/dup", NodeID: "n1", RenewedAt: at.Add(time.Minute)}, nil, true},
		{"same node id, renewed after this one registered but not lately",
			persistence.NodeRegistration{Owner: "n1/dup", NodeID: "n1", RenewedAt: at.Add(time.Second)}, nil, false},
	} {
		require.Equal(t, tc.want, r.conflicting(tc.peer, self, tc.members), tc.name)
	}
}

// The decision, round by round (observe called directly with made-up
// registrations): an earlier peer that refuses itself blocks nobody; when it
// serves again this node refuses at once (its grace ran long ago); when the
// conflict is over the node serves again at the resumeRounds-th round, having
// published its cleared flag in between.
func TestRefusalDecisionRoundByRound(t *testing.T) {
	met := &conflictMetrics{}
	c := New(Options{Store: memstore.New(), NodeID: "c", Rules: quickRules, Metrics: met, ClusterSettle: time.Millisecond,
		ClusterView: func() (string, []string) { return "C", []string{"A", "C"} }})
	r := c.reg
	t0 := time.Unix(1000, 0)
	reg := func(id, addr string, at time.Duration, refusing bool) persistence.NodeRegistration {
		return persistence.NodeRegistration{Owner: id + "/1", NodeID: id, Address: addr, RegisteredAt: t0.Add(at), RenewedAt: t0.Add(time.Hour), Refusing: refusing}
	}
	self := reg("c", "C", 3*time.Second, false)
	a := reg("a", "A", time.Second, false)  // same cluster: never a conflict
	b := reg("b", "", 2*time.Second, true)  // single, earlier than c, refusing because of a
	d := reg("d", "", 4*time.Second, false) // single, later than c
	now := t0.Add(time.Hour)
	round := func(peers ...persistence.NodeRegistration) {
		now = now.Add(r.grace/2 + time.Millisecond)
		r.observe(self, peers, now)
	}

	round(a, b, d)
	require.False(t, r.suspect.Load(), "b refuses: it is no threat")
	require.False(t, r.published.Load())
	round(a, b, d)
	round(a, b, d)
	require.False(t, r.refusing.Load())
	rep := r.report()
	require.NotNil(t, rep)
	require.False(t, rep.Refusing)
	require.Len(t, rep.Peers, 2)
	require.True(t, rep.Peers[0].Refusing)
	require.Equal(t, int64(2), met.peers.Load())

	// b serves again (a went away): c refuses in the same round.
	b.Refusing = false
	round(b, d)
	require.True(t, r.refusing.Load())
	require.True(t, r.published.Load())
	require.Contains(t, c.RefusingRequests(), "node b") // the host answers it as coordinator.ErrUnavailable (TestRefusalIsUnavailable)

	// b stops: round 1 clears the flag but keeps refusing, round 2 still refuses, round 3 serves.
	round(d)
	require.False(t, r.published.Load())
	require.True(t, r.refusing.Load())
	require.True(t, r.report().Refusing, "health stays DOWN while the node still refuses")
	round(d)
	require.True(t, r.refusing.Load())
	round(d)
	require.False(t, r.refusing.Load())
	require.Empty(t, c.RefusingRequests())

	// A new earlier, serving peer within its grace: the node may be about to refuse.
	e := reg("e", "", 0, false)
	round(d, e)
	require.True(t, r.suspect.Load())
	require.True(t, r.published.Load(), "published at once, so later nodes do not refuse because of this one")
	require.True(t, r.holdSweep())
	require.False(t, r.refusing.Load())
	round(d, e)
	round(d, e)
	require.True(t, r.refusing.Load())
}
