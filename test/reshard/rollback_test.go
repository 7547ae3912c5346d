package reshard

import (
	"context"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A scale-out 3→6 is rolled back while ACTIVE (the failpoint keeps it
// there; a scale-out has no DRAINING state: it retires nothing), after
// producers have written to the new shards: routing goes back to 3 shards
// at a newer version, what was written to shards 3…5 is drained, not
// dropped, and those streams are retired, no earlier than the routing grace
// after routing went back.
func TestRollbackOfScaleOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{Hold: protocol.MigrationActive, Spare: true})
	e.api.createStream(t, 3)
	e.startMember("m0")
	e.startMember("m1")
	e.waitOwned(3, 30*time.Second)
	mon := e.startMonitor()
	sdk := e.startSDKProducer(60)
	raw := e.startRawProducer(30)
	time.Sleep(500 * time.Millisecond)

	m := e.api.scale(t, 6)
	held := e.waitState(m.ReshardingID, 20*time.Second, protocol.MigrationActive)
	activated := e.api.mustRouting(t)
	if activated.ShardCount != 6 {
		t.Fatalf("ACTIVE: routing has %d shards, want 6", activated.ShardCount)
	}
	// Let the producers write to the new shards first.
	ctx := context.Background()
	e.waitUntil(10*time.Second, "entries on the new shards", func() bool {
		n := int64(0)
		for s := 3; s < 6; s++ {
			n += e.redis.Client().XLen(ctx, protocol.StreamKey(prefix, s)).Val()
		}
		return n >= 10
	})

	status, raw1, rb, err := e.api.rollback(m.ReshardingID)
	if err != nil || status != 202 {
		t.Fatalf("rollback in ACTIVE: status %d, err %v: %s", status, err, raw1)
	}
	if rb.ReshardingID != m.ReshardingID {
		t.Errorf("rollback answered another migration: %s", describe(rb))
	}
	done := e.waitState(m.ReshardingID, 45*time.Second, protocol.MigrationRolledBack)
	t.Logf("held %s, then %s", describe(held), describe(done))
	r := e.api.mustRouting(t)
	if r.ShardCount != 3 || r.MetadataVersion <= activated.MetadataVersion {
		t.Errorf("routing after the rollback: %d shards at version %d; want 3 shards, above %d", r.ShardCount,
			r.MetadataVersion, activated.MetadataVersion)
	}
	e.waitOwned(3, 30*time.Second)
	time.Sleep(500 * time.Millisecond)
	e.checkDataPlane(sdk, raw, mon)

	if done.RollbackRequestedBy != "test" || done.RollbackReason == "" {
		t.Errorf("rolled back migration does not say who asked and why: %s", describe(done))
	}
	if back, end := firstAt(t, done, protocol.MigrationRollingBack), firstAt(t, done, protocol.MigrationRolledBack); end.Sub(back) < grace {
		t.Errorf("rolled back %s after routing went back, before the routing grace %s: %s", end.Sub(back), grace, describe(done))
	}
	retired := e.checkRetired(done, 3)
	if retired != 3 {
		t.Errorf("rolled back: %d of the 3 added shards reported retired: %s", retired, describe(done))
	}
	for s := 3; s < 6; s++ {
		if n := e.redis.Client().Exists(ctx, protocol.StreamKey(prefix, s)).Val(); n != 0 {
			t.Errorf("shard %d still exists after the rollback", s)
		}
	}
	e.checkNoOrphans(3, e.api.mustMigrations(t).Migrations)
}

// firstAt is when m's history first shows state.
func firstAt(t *testing.T, m protocol.Migration, state string) time.Time {
	t.Helper()
	for _, h := range m.History {
		if h.State == state {
			at, err := time.Parse(time.RFC3339Nano, h.At)
			if err != nil {
				t.Fatalf("history at %q: %v", h.At, err)
			}
			return at
		}
	}
	t.Fatalf("no %s in the history of %s", state, describe(m))
	return time.Time{}
}
