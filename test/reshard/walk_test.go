package reshard

import (
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The stream walks 4→8→3→0→5 while both producers publish all the time and
// members join, leave and crash: a member joins during the scale-out, one is
// killed with kill -9 during the scale-in to 3 (and comes back later), one
// leaves gracefully during the scale-in to 0. At 0 shards the producers
// cannot publish (nothing is acknowledged, so nothing can be lost). Every
// entry Redis acknowledged is processed, one owner per shard throughout,
// removed shards are retired, and the history lists the four migrations
// with their states in order.
func TestReshardWalk(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.api.createStream(t, 4)
	for _, id := range []string{"m0", "m1", "m2"} {
		e.startMember(id)
	}
	e.waitOwned(4, 30*time.Second)
	mon := e.startMonitor()
	sdk := e.startSDKProducer(80)
	raw := e.startRawProducer(40)
	time.Sleep(time.Second)
	v0 := e.api.mustRouting(t).MetadataVersion

	type step struct {
		to     int
		during func(protocol.Migration)
	}
	steps := []step{
		{8, func(protocol.Migration) { e.startMember("m3") }},
		{3, func(m protocol.Migration) {
			now := e.waitState(m.ReshardingID, 20*time.Second, protocol.MigrationActive, protocol.MigrationDraining)
			e.member("m1").Kill()
			t.Logf("killed m1 (kill -9) during %s (%s)", m.ReshardingID, now.State)
		}},
		{0, func(m protocol.Migration) {
			e.startMember("m1") // back, with the same member id
			e.waitState(m.ReshardingID, 20*time.Second, protocol.MigrationActive, protocol.MigrationDraining)
			if !e.member("m2").Leave(10 * time.Second) {
				t.Errorf("m2 did not leave within 10s of SIGTERM")
			}
		}},
		{5, nil},
	}
	from := 4
	var ids []string
	var zeroFailures int64
	for _, s := range steps {
		start := time.Now()
		m := e.api.scale(t, s.to)
		ids = append(ids, m.ReshardingID)
		if s.during != nil {
			s.during(m)
		}
		done := e.waitState(m.ReshardingID, 45*time.Second, protocol.MigrationDeprecated)
		r := e.api.mustRouting(t)
		t.Logf("%d→%d (%s) DEPRECATED after %s; routing: %d shards, version %d", from, s.to, m.ReshardingID,
			time.Since(start).Round(time.Millisecond), r.ShardCount, r.MetadataVersion)
		if r.ShardCount != s.to || r.MetadataVersion < done.MetadataVersion || r.MetadataVersion <= v0 {
			t.Errorf("after %d→%d routing has %d shards at version %d (migration activated version %d, before %d)",
				from, s.to, r.ShardCount, r.MetadataVersion, done.MetadataVersion, v0)
		}
		v0 = r.MetadataVersion
		// Removed shards are retired now: their keys are gone and a late
		// XADD NOMKSTREAM writes nothing (until a later scale-out).
		e.checkRetired(done, s.to)
		if s.to == 0 {
			before := sdk.Failures()
			time.Sleep(time.Second)
			zeroFailures = sdk.Failures() - before
			if zeroFailures == 0 {
				t.Errorf("at 0 shards the SDK producer still published")
			}
		} else {
			e.waitOwned(s.to, 30*time.Second)
		}
		from = s.to
	}
	time.Sleep(time.Second) // publish on the last shard set
	e.checkDataPlane(sdk, raw, mon)
	t.Logf("SDK producer: %d published, %d failed attempts (%d in a second at 0 shards); raw producer: %d published, %d nil replies (retired streams), %d errors, routings used %v",
		sdk.Produced(), sdk.Failures(), zeroFailures, len(raw.Acked()), raw.nilReplies.Load(), raw.failures.Load(), raw.Routed())

	// The history, newest first: the four migrations, in order.
	migs := e.api.mustMigrations(t)
	if migs.ActiveReshardingID != nil {
		t.Errorf("activeReshardingId %q after the walk", *migs.ActiveReshardingID)
	}
	if len(migs.Migrations) != len(ids) {
		t.Fatalf("%d migrations listed, want %d", len(migs.Migrations), len(ids))
	}
	counts := []int{4, 8, 3, 0, 5}
	var lastVersion int64
	for i, id := range ids {
		m := migs.Migrations[len(ids)-1-i]
		if m.ReshardingID != id {
			t.Errorf("migration %d listed as %s, want %s (newest first)", i, m.ReshardingID, id)
			continue
		}
		e.checkHistory(m, counts[i], counts[i+1], protocol.MigrationDeprecated)
		if m.MetadataVersion <= lastVersion {
			t.Errorf("migration %s activated version %d, not above the one before (%d)", id, m.MetadataVersion, lastVersion)
		}
		lastVersion = m.MetadataVersion
		e.checkRetired(m, 5)
	}
	e.checkNoOrphans(5, migs.Migrations)
	// Every transition is counted.
	_, metrics, err := e.api.do("GET", "/metrics", nil, nil)
	if err != nil || !strings.Contains(string(metrics), "rsc_migration_transitions_total") {
		t.Errorf("/metrics lacks rsc_migration_transitions_total (%v)", err)
	}
	// The raw producer kept its 4-shard routing through 4→8 and wrote to
	// shard 3, which 8→3 retired: it must have met a nil reply there.
	if raw.nilReplies.Load() == 0 {
		t.Errorf("the raw producer never got a nil reply from XADD NOMKSTREAM: no retired stream refused a late write")
	}
}
