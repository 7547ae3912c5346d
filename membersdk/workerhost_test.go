package membersdk

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/internal/shardworker"
)

// The worker reports events and writes dead letters with its own copies of
// the public constants: they must stay the same values.
func TestWorkerConstantsMatchThePublicOnes(t *testing.T) {
	for internal, public := range map[string]EventType{
		shardworker.EventShardStarted: EventShardStarted, shardworker.EventAcked: EventAcked,
		shardworker.EventAckRefused: EventAckRefused, shardworker.EventAckFenced: EventAckFenced,
		shardworker.EventFenceNotHeld: EventFenceNotHeld, shardworker.EventDeadLettered: EventDeadLettered,
	} {
		require.Equal(t, string(public), internal)
	}
	require.Equal(t, []string{DLQFieldOriginStream, DLQFieldOriginID, DLQFieldError, DLQFieldConsumerGroup, DLQFieldMemberID, DLQFieldDeliveries},
		[]string{shardworker.DLQFieldOriginStream, shardworker.DLQFieldOriginID, shardworker.DLQFieldError,
			shardworker.DLQFieldConsumerGroup, shardworker.DLQFieldMemberID, shardworker.DLQFieldDeliveries})
	require.Equal(t, ShardDeadLetterKey("orders:3"), shardworker.ShardDeadLetterKey("orders:3"))
}
