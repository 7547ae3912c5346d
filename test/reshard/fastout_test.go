package reshard

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// longGrace is the routing grace of TestScaleOutEndsWithoutTheGrace: far
// longer than a scale-out takes.
const longGrace = time.Minute

// With a 1 m routing grace, a scale-out 4→8 on a running stream (members
// consuming, both producers publishing) reaches its end state within a few
// seconds: it retires nothing, so it waits no grace. A scale-in 8→4
// requested right after is accepted (202, not 409), switches routing at
// once and retires its shards only once the grace since that last routing
// change is over. Nothing Redis acknowledged is lost. A stream with no
// group shows its migrations through the stream's own routes.
func TestScaleOutEndsWithoutTheGrace(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{Env: map[string]string{"RSC_RESHARDING_ROUTING_GRACE": longGrace.String()}})
	e.api.createStream(t, 4)
	e.startMember("m0")
	e.startMember("m1")
	e.waitOwned(4, 30*time.Second)
	mon := e.startMonitor()
	sdk := e.startSDKProducer(60)
	raw := e.startRawProducer(30)
	time.Sleep(500 * time.Millisecond)

	start := time.Now()
	out := e.api.scale(t, 8)
	done := e.waitState(out.ReshardingID, 15*time.Second, protocol.MigrationDeprecated)
	took := time.Since(start)
	t.Logf("scale-out 4→8 reached %s %s after the request (routing grace %s): %s", done.State, took.Round(time.Millisecond), longGrace, describe(done))
	if took > 10*time.Second {
		t.Errorf("the scale-out took %s, want a few seconds (it must not wait the %s grace)", took, longGrace)
	}
	e.checkHistory(done, 4, 8, protocol.MigrationDeprecated)
	for _, h := range done.History {
		if h.State == protocol.MigrationDraining {
			t.Errorf("a scale-out passed through DRAINING: %s", describe(done))
		}
	}
	if r := e.api.mustRouting(t); r.ShardCount != 8 {
		t.Fatalf("routing after the scale-out: %d shards, want 8", r.ShardCount)
	}
	e.waitOwned(8, 30*time.Second)

	// A scale-in right after: accepted, routing switched at once, nothing retired
	// before the grace since that switch.
	in := e.api.scale(t, 4)
	if r := e.api.mustRouting(t); r.ShardCount != 4 {
		t.Errorf("routing right after the scale-in's 202: %d shards, want 4", r.ShardCount)
	}
	waiting := e.waitState(in.ReshardingID, 20*time.Second, protocol.MigrationDraining)
	e.waitUntil(10*time.Second, "the scale-in says it waits for the routing grace", func() bool {
		m, err := e.api.migration(in.ReshardingID)
		waiting = m
		return err == nil && strings.Contains(m.Waiting, "resharding.routing-grace")
	})
	t.Logf("scale-in waits: %s (%s)", waiting.Waiting, describe(waiting))
	switched := firstAt(t, waiting, protocol.MigrationActive) // the switch step moves PREPARING → ACTIVE
	for _, s := range waiting.Shards {
		if s.State == "RETIRED" && time.Now().Before(switched.Add(longGrace)) {
			t.Errorf("shard %d retired %s after the routing change, before the grace: %s", s.ShardIndex, time.Since(switched), describe(waiting))
		}
	}
	ctx := context.Background()
	for s := 4; s < 8; s++ {
		if n := e.redis.Client().Exists(ctx, protocol.StreamKey(prefix, s)).Val(); n != 1 && time.Now().Before(switched.Add(longGrace)) {
			t.Errorf("shard %d is gone before the grace since the routing change", s)
		}
	}

	// A stream without groups: its migrations read through the stream's routes.
	bare, two, three := "/coord/v1/streams/bare", 2, 3
	e.api.must(t, "POST", bare, protocol.CreateStreamRequest{InitialShardCount: &two, RequestedBy: "test"}, nil, 201)
	var sr protocol.ScaleResponse
	e.api.must(t, "POST", bare+"/scale", protocol.ScaleRequest{TargetShardCount: &three, RequestedBy: "test"}, &sr, 202)
	e.waitUntil(10*time.Second, "the group-less stream's scale-out finished", func() bool {
		var list protocol.MigrationsResponse
		status, _, err := e.api.do("GET", bare+"/migrations", nil, &list)
		return err == nil && status == 200 && len(list.Migrations) == 1 && list.Migrations[0].State == protocol.MigrationDeprecated
	})
	var one protocol.Migration
	e.api.must(t, "GET", bare+"/migrations/"+sr.Migrations[0].ReshardingID, nil, &one, 200)
	if one.ToShardCount != 3 || one.ConsumerGroup != "" {
		t.Errorf("the group-less stream's migration: %s", describe(one))
	}

	final := e.waitState(in.ReshardingID, longGrace+30*time.Second, protocol.MigrationDeprecated)
	end := firstAt(t, final, protocol.MigrationDeprecated)
	t.Logf("scale-in 8→4 ended %s after its routing change: %s", end.Sub(switched).Round(time.Millisecond), describe(final))
	if end.Sub(switched) < longGrace {
		t.Errorf("the scale-in ended %s after its routing change, before the %s grace", end.Sub(switched), longGrace)
	}
	e.checkHistory(final, 8, 4, protocol.MigrationDeprecated)
	e.checkRetired(final, 4)
	e.waitOwned(4, 30*time.Second)
	time.Sleep(500 * time.Millisecond)
	e.checkDataPlane(sdk, raw, mon)
	e.checkNoOrphans(4, e.api.mustMigrations(t).Migrations)
}
