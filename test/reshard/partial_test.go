package reshard

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A scale-in 4→2 where shard 3 cannot drain (a Redis consumer group the
// coordinator does not manage has an undelivered entry there): shard 2 is
// retired, shard 3 waits and the migration says who blocks it. A rollback
// then brings both back: shard 3 as it was (its entries kept), shard 2 as a
// new, empty stream — and the retired stream of shard 2, still held for
// the retention time, stays reported by the migration (no unreported key).
func TestRollbackAfterPartialRetire(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.api.createStream(t, 4)
	e.startMember("m0")
	e.waitOwned(4, 30*time.Second)
	ctx := context.Background()
	rdb := e.redis.Client()
	blocker := protocol.StreamKey(prefix, 3)
	if err := rdb.XGroupCreate(ctx, blocker, "audit", "$").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: blocker, NoMkStream: true, Values: map[string]any{"seq": 0}}).Err(); err != nil {
		t.Fatal(err)
	}

	m := e.api.scale(t, 2)
	var blocked protocol.Migration
	e.waitUntil(20*time.Second, "shard 2 retired while shard 3 is blocked by group audit", func() bool {
		got, err := e.api.migration(m.ReshardingID)
		if err != nil {
			return false
		}
		blocked = got
		var two, three bool
		for _, s := range got.Shards {
			two = two || s.ShardIndex == 2 && s.State == "RETIRED"
			for _, b := range s.BlockedBy {
				three = three || s.ShardIndex == 3 && b.ConsumerGroup == "audit" && b.Lag != 0
			}
		}
		return two && three
	})
	t.Logf("blocked: %s", describe(blocked))
	if blocked.Waiting == "" {
		t.Errorf("a migration blocked by a consumer group does not say what it waits for: %s", describe(blocked))
	}
	var retiredKey string
	for _, s := range blocked.Shards {
		if s.ShardIndex == 2 {
			retiredKey = s.RetiredKey
		}
	}
	if n := rdb.Exists(ctx, retiredKey).Val(); retiredKey == "" || n != 1 {
		t.Fatalf("shard 2 RETIRED but its retired key %q does not exist", retiredKey)
	}

	status, raw, _, err := e.api.rollback(m.ReshardingID)
	if err != nil || status != 202 {
		t.Fatalf("rollback: %d %v: %s", status, err, raw)
	}
	done := e.waitState(m.ReshardingID, 30*time.Second, protocol.MigrationRolledBack)
	t.Logf("rolled back: %s", describe(done))
	if r := e.api.mustRouting(t); r.ShardCount != 4 {
		t.Errorf("routing after the rollback: %d shards, want 4", r.ShardCount)
	}
	if n := rdb.XLen(ctx, blocker).Val(); n == 0 {
		t.Errorf("shard 3's entries are gone after the rollback")
	}
	if n := rdb.Exists(ctx, protocol.StreamKey(prefix, 2)).Val(); n != 1 {
		t.Errorf("shard 2 not provisioned again by the rollback")
	}
	e.waitOwned(4, 30*time.Second)
	// The retired stream of shard 2 is still there (retention): some
	// migration must still name it.
	e.checkNoOrphans(4, e.api.mustMigrations(t).Migrations)
}
