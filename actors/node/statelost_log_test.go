package node

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/persistence"
)

// The WARN line of a grant hold says which case it is and whether
// store.trust-empty-store has anything to do with it (docs/RELIABILITY.md,
// "Redis data loss"); a second sign during the same hold is not logged again.
func TestHoldWarnNamesTheCaseAndTrustEmptyStore(t *testing.T) {
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "workers"}
	for _, tc := range []struct {
		kind, advice string
		nodeWide     bool
	}{
		{groupdeps.LossActiveReaders, "or set store.trust-empty-store=true to skip this check", false},
		{groupdeps.LossMemberClaims, "store.trust-empty-store does not skip this hold", false},
		{groupdeps.LossStoreBehind, "store.trust-empty-store does not skip this hold", true},
		{LossMarkerChanged, "store.trust-empty-store does not skip this hold", true},
		{LossRecordVanished, "store.trust-empty-store does not skip this hold", true},
		{LossRenewsBackwards, "store.trust-empty-store does not skip this hold", true},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			var buf bytes.Buffer
			n := New(Options{Logger: slog.New(slog.NewTextHandler(&buf, nil)), Now: func() time.Time { return now }})
			until := now.Add(18 * time.Second)
			if tc.nodeWide {
				n.stateLost(tc.kind, "why", until)
			} else {
				n.GroupStateLost(key, tc.kind, "why", until)
			}
			line := buf.String()
			require.Contains(t, line, "level=WARN")
			require.Contains(t, line, "Redis lost coordinator state")
			require.Contains(t, line, "case="+tc.kind)
			require.Contains(t, line, tc.advice)
			require.Contains(t, line, "granting no shard until 2024-05-01T10:00:18Z")

			buf.Reset()
			n.GroupStateLost(key, tc.kind, "why again", until.Add(time.Second))
			require.NotContains(t, buf.String(), "level=WARN", "one WARN per hold")
		})
	}
}
