package groupstate

import (
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// A node keeps one record per member: applying a steady heartbeat overwrites it in place
// (no allocation), and records share their name's bytes and keep their own id string.
func TestApplyKeepsOneRecordPerMember(t *testing.T) {
	g := New(testCfg, "s", "g", 8, 0)
	now := t0
	fresh := func(s string) string { return strings.Clone(s) } // as decoded from a request
	named := func(hb model.Heartbeat) model.Heartbeat { hb.MemberName = fresh("orders-worker"); return hb }
	for _, id := range []string{"a", "b"} {
		g.Apply(g.Heartbeat(named(hbFor(fresh(id), 0, nil)), now).Change)
	}
	for range 3 {
		for _, id := range []string{"a", "b"} {
			m, _ := g.Member(id)
			g.Apply(g.Heartbeat(named(hbFor(fresh(id), m.Epoch, m.Assigned)), now).Change)
		}
	}
	a, b := g.members["a"], g.members["b"]
	require.Equal(t, "orders-worker", a.Name)
	assert.Equal(t, unsafe.StringData(a.Name), unsafe.StringData(b.Name), "members share their name's bytes")

	m, _ := g.Member("a")
	require.Empty(t, m.Pending)
	now = now.Add(time.Second)
	d := g.Heartbeat(named(hbFor(fresh("a"), m.Epoch, m.Assigned)), now)
	require.NotNil(t, d.Change)
	require.False(t, d.Change.Durable, "steady")
	idBytes := unsafe.StringData(a.ID)
	allocs := testing.AllocsPerRun(1, func() { g.Apply(d.Change) })
	assert.Zero(t, allocs, "applying a steady heartbeat allocates nothing")
	assert.Same(t, a, g.members["a"], "the record is overwritten in place")
	assert.Equal(t, idBytes, unsafe.StringData(g.members["a"].ID), "it keeps its id string")
	assert.Equal(t, model.InstantOf(now), g.members["a"].LastHeartbeat)
}
