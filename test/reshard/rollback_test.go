package reshard

import (
	"context"
	"testing"
	"time"

	"github.com/redisstream/coordinator/api/protocol"
)

// A scale-out 3→6 is rolled back while ACTIVE (and, in a second run, while
// DRAINING; the failpoint keeps it there), after producers have written to
// the new shards: routing goes back to 3 shards at a newer version, what was
// written to shards 3…5 is drained, not dropped, and those streams are
// retired. In DRAINING a rollback may instead be refused as no longer safe
// (422 with the reason), and then the migration completes.
func TestRollbackOfScaleOut(t *testing.T) {
	t.Parallel()
	for _, at := range []string{protocol.MigrationActive, protocol.MigrationDraining} {
		t.Run(at, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{Hold: at, Spare: true})
			e.api.createStream(t, 3)
			e.startMember("m0")
			e.startMember("m1")
			e.waitOwned(3, 30*time.Second)
			mon := e.startMonitor()
			sdk := e.startSDKProducer(60)
			raw := e.startRawProducer(30)
			time.Sleep(500 * time.Millisecond)

			m := e.api.scale(t, 6)
			held := e.waitState(m.ReshardingID, 20*time.Second, at)
			activated := e.api.mustRouting(t)
			if activated.ShardCount != 6 {
				t.Fatalf("%s: routing has %d shards, want 6", at, activated.ShardCount)
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
			if err != nil {
				t.Fatal(err)
			}
			final := protocol.MigrationRolledBack
			switch {
			case status == 202:
				if rb.ReshardingID != m.ReshardingID {
					t.Errorf("rollback answered another migration: %s", describe(rb))
				}
			case status == 422 && at == protocol.MigrationDraining:
				b := errorBody(t, raw1)
				if b.ErrorCode != protocol.CodeRollbackNotAllowed {
					t.Errorf("422 with errorCode %s, want %s", b.ErrorCode, protocol.CodeRollbackNotAllowed)
				}
				t.Logf("rollback in DRAINING refused: %s", b.Message)
				final = protocol.MigrationDeprecated
				// The failpoint still holds DRAINING on this node: a node
				// without it finishes the migration.
				e.first().Kill()
				e.StartSpare()
			default:
				t.Fatalf("rollback in %s: status %d: %s", at, status, raw1)
			}
			done := e.waitState(m.ReshardingID, 45*time.Second, final)
			t.Logf("held %s, then %s", describe(held), describe(done))
			wantCount := 3
			if final == protocol.MigrationDeprecated {
				wantCount = 6
			}
			r := e.api.mustRouting(t)
			if r.ShardCount != wantCount || r.MetadataVersion <= activated.MetadataVersion && final == protocol.MigrationRolledBack {
				t.Errorf("routing after %s: %d shards at version %d; want %d shards, above %d", final, r.ShardCount,
					r.MetadataVersion, wantCount, activated.MetadataVersion)
			}
			e.waitOwned(wantCount, 30*time.Second)
			time.Sleep(500 * time.Millisecond)
			e.checkDataPlane(sdk, raw, mon)

			if final == protocol.MigrationRolledBack {
				if done.RollbackRequestedBy != "test" || done.RollbackReason == "" {
					t.Errorf("rolled back migration does not say who asked and why: %s", describe(done))
				}
				retired := e.checkRetired(done, wantCount)
				if retired != 3 {
					t.Errorf("rolled back: %d of the 3 added shards reported retired: %s", retired, describe(done))
				}
				for s := 3; s < 6; s++ {
					if n := e.redis.Client().Exists(ctx, protocol.StreamKey(prefix, s)).Val(); n != 0 {
						t.Errorf("shard %d still exists after the rollback", s)
					}
				}
			} else {
				e.checkHistory(done, 3, 6, final)
			}
			e.checkNoOrphans(wantCount, e.api.mustMigrations(t).Migrations)
		})
	}
}
