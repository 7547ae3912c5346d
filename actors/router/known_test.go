package router

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// A forwarded heartbeat that the group's activation accepted keeps the group known to be
// stored for a member lease (so forwarding steady heartbeats reads nothing per group), a
// plain check for knownTTL; an answer that does not show the member known keeps nothing.
func TestAcceptedForwardedHeartbeatKeepsGroupKnownForALease(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	rules := model.Config{HeartbeatInterval: 3 * time.Second, LeaseTTL: 15 * time.Second} // kept for 18 s
	h := New(Options{Rules: rules, NodeID: "n1", Now: func() time.Time { return now }})
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "billing"}

	require.False(t, h.KnownStored(key))
	h.keepKnown(key)
	now = now.Add(knownTTL + time.Second)
	require.True(t, h.KnownStored(key), "kept past knownTTL")
	now = now.Add(rules.LeaseTTL + rules.HeartbeatInterval - knownTTL)
	require.False(t, h.KnownStored(key), "a kept entry lasts one lease + interval, not longer")

	for status, known := range map[protocol.Status]bool{
		protocol.StatusOK: true, protocol.StatusRevokePending: true, protocol.StatusSyncMetadata: true,
		protocol.StatusRetry: false, protocol.StatusUnknownMemberID: false, protocol.StatusFencedMemberEpoch: false,
	} {
		require.Equal(t, known, memberKnown(status), status)
	}
}
