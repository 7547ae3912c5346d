package group

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// A grant hold (store data loss) is volatile state of the rules. When the group reloads from
// the store during the hold (here: its write finds the revision moved), the hold must survive
// the reload: a freed shard is still granted to nobody until the hold ends.
func TestGrantHoldSurvivesAReload(t *testing.T) {
	s := newShell(t, rules, time.Now)
	a := s.beat("a", 0)
	a = s.beat("a", a.MemberEpoch, owned(a)...)
	require.Len(t, a.Assignment.AssignedShards, 4)

	s.system.Root.Send(s.pid, &StoreLost{Until: time.Now().Add(time.Hour)})

	// Move the stored revision under the activation: its next write conflicts and it reloads.
	d := s.debug()
	_, err := s.store.SaveGroup(context.Background(), key, d.ActivationEpoch, d.StoreRevision, persistence.GroupChange{})
	require.NoError(t, err)
	r := s.beat("b", 0)
	require.Equal(t, protocol.StatusRetry, r.Status, "the conflicting write is answered RETRY, then the group reloads")
	require.Greater(t, s.debug().StoreRevision, d.StoreRevision, "reloaded")

	b := s.beat("b", 0)
	require.Equal(t, protocol.StatusOK, b.Status)
	b = s.beat("b", b.MemberEpoch)
	a = s.beat("a", a.MemberEpoch, owned(a)...)
	// a releases everything it is not given any more; b must still get none of it.
	a = s.beat("a", a.MemberEpoch, owned(a)...)
	b = s.beat("b", b.MemberEpoch)
	require.Empty(t, b.Assignment.AssignedShards, "a shard was granted during the hold after a reload")
	require.NotEmpty(t, b.Assignment.PendingShards)
}

// A group with no stored state is a new group or one the store lost; the node checks the store
// before serving it. If that check fails (Redis restarting after the loss), the group is not
// served — members are told RETRY — rather than granting shards without knowing.
func TestNewGroupIsNotServedWhenTheStoreCheckFails(t *testing.T) {
	var storeUp atomic.Bool
	s := bareShell(t)
	s.deps = &Deps{Store: s.store, Provisioner: s.prov, Rules: rules, NodeID: "test", Now: time.Now,
		Node: testNode{verify: func() error {
			if !storeUp.Load() {
				return errors.New("renew: store unavailable")
			}
			return nil
		}}}
	s.spawn()
	s.confirmLoop(time.Now)

	r := s.beat("a", 0)
	require.Equal(t, protocol.StatusRetry, r.Status, "served without knowing whether the store lost data: %+v", r)
	require.Empty(t, r.Assignment.AssignedShards)

	storeUp.Store(true)
	r = s.beat("a", 0)
	require.Equal(t, protocol.StatusOK, r.Status)
	require.Len(t, r.Assignment.AssignedShards, 4)
}
