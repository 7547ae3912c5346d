package node

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

var gateT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const gateWindow = 5 * time.Second

func gateAt(ms int) time.Time { return gateT0.Add(time.Duration(ms) * time.Millisecond) }

// listAt is this node ("B") with a member list that changed at changedMs and
// places the group on owner.
func listAt(owner string, changedMs int) Placement {
	return Placement{Self: "B", Owner: owner, ChangedAt: gateAt(changedMs),
		Listed: map[string]string{"ma": "A", "mb": "B"}, Departed: map[string]bool{}}
}

func holderIs(h holder) func() holder { return func() holder { return h } }

// noRead fails the test if the gate reads the holder although the verdict
// does not depend on it.
func noRead(t *testing.T) func() holder {
	return func() holder {
		t.Fatal("the gate read the store although its verdict did not depend on it")
		return holderNone
	}
}

// Rule 1: no member list (single mode, or before the first topology event).
func TestGateWithoutMemberListActivates(t *testing.T) {
	require.Equal(t, activate, decide(gateInput{Now: gateAt(0), Window: gateWindow, Placement: Placement{Self: "B"}}, noRead(t)))
}

// Rule 3: this node's list places the group elsewhere — RETRY, whether or
// not this node's list changed recently (a node whose list is stable is asked
// by one whose list is not).
func TestGatePlacedElsewhereRefusesEvenOnAStableList(t *testing.T) {
	require.Equal(t, placedElsewhere, decide(gateInput{Now: gateAt(1000), Window: gateWindow, Placement: listAt("A", 0)}, noRead(t)))
	require.Equal(t, placedElsewhere, decide(gateInput{Now: gateAt(60_000), Window: gateWindow, Placement: listAt("A", 0)}, noRead(t)))
}

// Rule 2: the gate holds a group at most one window from its first refusal.
func TestGateHoldsAGroupAtMostOneWindow(t *testing.T) {
	in := gateInput{Now: gateAt(60_000), Window: gateWindow, Placement: listAt("A", 0), Refusing: gateAt(55_001)}
	require.Equal(t, placedElsewhere, decide(in, noRead(t)))
	in.Refusing = gateAt(55_000)
	require.Equal(t, activate, decide(in, noRead(t)), "refused for the whole window: activate")

	in = gateInput{Now: gateAt(4_000), Window: gateWindow, Placement: listAt("B", 0), Refusing: gateAt(-1_000)}
	require.Equal(t, activate, decide(in, noRead(t)), "also when waiting for a holder")
}

// Rule 4: placed here by a list that has not changed for a window: nobody to
// wait for, no store read.
func TestGateStableListPlacingHereActivates(t *testing.T) {
	require.Equal(t, activate, decide(gateInput{Now: gateAt(5_000), Window: gateWindow, Placement: listAt("B", 0)}, noRead(t)))
}

// Rule 5: placed here by a list that just changed (this node rejoined):
// wait for a live holder on a reachable node, or while this node cannot tell.
func TestGateRecentListWaitsForALiveHolder(t *testing.T) {
	in := gateInput{Now: gateAt(4_999), Window: gateWindow, Placement: listAt("B", 0)}
	require.Equal(t, waitForHolder, decide(in, holderIs(holderLive)))
	require.Equal(t, waitForHolder, decide(in, holderIs(holderUnknown)))
	require.Equal(t, activate, decide(in, holderIs(holderGone)))
	require.Equal(t, activate, decide(in, holderIs(holderNone)))
}

// The stored owner's registration: live and listed (or not listed yet) is
// waited for; expired, refusing, departed, evicted or replaced at its address
// is not.
func TestPeerHolderReachability(t *testing.T) {
	p := listAt("B", 0)
	p.Departed = map[string]bool{"mold": true}
	reg := func(id, addr string) persistence.NodeRegistration {
		return persistence.NodeRegistration{Owner: "x/1", NodeID: "x", MemberID: id, Address: addr}
	}
	require.Equal(t, holderLive, peerHolder(reg("ma", "A"), true, p), "listed")
	require.Equal(t, holderLive, peerHolder(reg("mc", "C"), true, p), "not listed yet (this node just started)")
	require.Equal(t, holderLive, peerHolder(reg("", "A"), true, p), "no member id: listed by address")
	require.Equal(t, holderGone, peerHolder(reg("ma", "A"), false, p), "registration expired")
	refusing := reg("ma", "A")
	refusing.Refusing = true
	require.Equal(t, holderGone, peerHolder(refusing, true, p), "refuses to serve: releases its groups")
	require.Equal(t, holderGone, peerHolder(reg("mold", "C"), true, p), "this node saw it leave (kill -9)")
	require.Equal(t, holderGone, peerHolder(reg("mprev", "A"), true, p), "a newer process is listed at its address")
}

// An episode starts at the first refusal, lasts while refusals follow within
// the window, and ends when the group activates.
func TestGateEpisodes(t *testing.T) {
	var e episodes
	k := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "g"}
	require.True(t, e.since(k, gateAt(0), gateWindow).IsZero())
	e.note(k, placedElsewhere, gateAt(0), gateWindow)
	e.note(k, waitForHolder, gateAt(4_000), gateWindow)
	require.Equal(t, gateAt(0), e.since(k, gateAt(8_000), gateWindow), "refusals within the window: one episode")
	require.True(t, e.since(k, gateAt(9_000), gateWindow).IsZero(), "nobody asked for a window: over")
	e.note(k, placedElsewhere, gateAt(9_000), gateWindow)
	require.Equal(t, gateAt(9_000), e.since(k, gateAt(9_100), gateWindow), "a new episode")
	e.note(k, activate, gateAt(9_200), gateWindow)
	require.True(t, e.since(k, gateAt(9_300), gateWindow).IsZero(), "activated: over")

	other := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "h"}
	e.note(other, placedElsewhere, gateAt(10_000), gateWindow)
	e.note(k, placedElsewhere, gateAt(20_000), gateWindow)
	require.Len(t, e.m, 1, "stale episodes are pruned")
}

// The gate's promise under any sequence of requests: a group is refused for
// at most one window from the start of its episode, after which the next
// request activates it.
func TestGateNeverHoldsAGroupPastTheWindow(t *testing.T) {
	var e episodes
	k := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "g"}
	for _, p := range []Placement{listAt("A", 0), listAt("B", 0)} {
		first := time.Time{}
		for ms := 100; ms < 20_000; ms += 150 {
			now := gateAt(ms)
			in := gateInput{Now: now, Window: gateWindow, Placement: p, Refusing: e.since(k, now, gateWindow)}
			in.Placement.ChangedAt = now // the list keeps changing: the worst case
			v := decide(in, holderIs(holderLive))
			e.note(k, v, now, gateWindow)
			if v == activate {
				break
			}
			if first.IsZero() {
				first = now
			}
			require.Less(t, now.Sub(first), gateWindow, "refused past the window")
		}
	}
}
