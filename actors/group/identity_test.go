package group

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

func TestIdentityRoundTrip(t *testing.T) {
	for _, k := range []persistence.GroupKey{{StreamPrefix: "orders", ConsumerGroup: "billing"},
		{StreamPrefix: "a/b", ConsumerGroup: "c"}, {StreamPrefix: "a", ConsumerGroup: "b/c"}, {StreamPrefix: "ü %", ConsumerGroup: "g?#"}} {
		back, err := keyOfIdentity(IdentityOf(k))
		require.NoError(t, err)
		require.Equal(t, k, back)
	}
	require.NotEqual(t, IdentityOf(persistence.GroupKey{StreamPrefix: "a/b", ConsumerGroup: "c"}),
		IdentityOf(persistence.GroupKey{StreamPrefix: "a", ConsumerGroup: "b/c"}))
	for _, bad := range []string{"", "nogroup", "a/b/c", "/g", "p/"} {
		_, err := keyOfIdentity(bad)
		require.ErrorIs(t, err, errBadIdentity, bad)
	}
}
