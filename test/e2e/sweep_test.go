package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// The coordinator is killed while member a holds shards, and a dies too. After the restart no
// request names the group; the start-up sweep activates it anyway, a expires one lease later
// (Redis says EXPIRED, not only the coordinator's memory), and the group passivates.
func TestMembersOfAGroupNobodyAsksAboutExpireAfterRestart(t *testing.T) {
	e := start(t, map[string]string{"RSC_GROUPS_IDLE_PASSIVATION": "1s"})
	e.c.CreateStream(t, "orders", 4)
	a := e.member("a")
	beatAll(t, 3, a)
	require.Len(t, a.Shards(), 4)

	e.coord.Restart() // kill -9, then start; a is gone as well
	store, err := redisstore.New(e.redis.Client(), redisstore.Options{})
	require.NoError(t, err)
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "workers"}
	require.Eventually(t, func() bool {
		snap, err := store.LoadGroup(context.Background(), key)
		require.NoError(t, err)
		var m model.Member
		require.NoError(t, json.Unmarshal(snap.Members["a"], &m))
		return m.State == model.StateExpired
	}, 15*time.Second, 100*time.Millisecond, "a dead member of a group nobody asked about was never expired")
	require.Eventually(t, func() bool {
		return strings.Contains(e.coord.Logs(), "no live member")
	}, 10*time.Second, 100*time.Millisecond, "the group did not passivate once its member expired")
	require.Contains(t, e.coord.Logs(), "sweep activated groups with live members that no node held")
	require.Equal(t, "EXPIRED", e.members(t)["a"].State)
}
