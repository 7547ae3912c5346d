package reshard

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// maxShardCount is the coordinator's largest shard count.
const maxShardCount = 4096

// Bad scale requests get 400 with the error body and change nothing (the
// routing version stays, no migration appears); a scale of an unknown
// stream is 404; unknown migration ids are 404 on read and rollback.
func TestScaleBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.api.createStream(t, 4)
	before := e.api.mustRouting(t)
	cases := []struct {
		name string
		body string
	}{
		{"negative", `{"targetShardCount":-1,"requestedBy":"test","reason":"x"}`},
		{"above the maximum", fmt.Sprintf(`{"targetShardCount":%d,"requestedBy":"test","reason":"x"}`, maxShardCount+1)},
		{"far above the maximum", `{"targetShardCount":9007199254740993,"requestedBy":"test","reason":"x"}`},
		{"equal to the current count", `{"targetShardCount":4,"requestedBy":"test","reason":"x"}`},
		{"not an integer", `{"targetShardCount":3.5,"requestedBy":"test","reason":"x"}`},
		{"a string", `{"targetShardCount":"4","requestedBy":"test","reason":"x"}`},
		{"missing", `{"requestedBy":"test","reason":"x"}`},
		{"null", `{"targetShardCount":null,"requestedBy":"test","reason":"x"}`},
		{"no requestedBy", `{"targetShardCount":6,"reason":"x"}`},
		{"malformed", `{"targetShardCount":6,`},
	}
	for _, tc := range cases {
		status, raw, _, err := e.api.scaleRaw([]byte(tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if status != 400 {
			t.Errorf("%s: status %d, want 400: %s", tc.name, status, raw)
			continue
		}
		b := errorBody(t, raw)
		if b.ErrorCode != protocol.CodeInvalidArgument && b.ErrorCode != protocol.CodeMalformedRequest {
			t.Errorf("%s: errorCode %s", tc.name, b.ErrorCode)
		}
		t.Logf("%s: %s %s: %s", tc.name, b.Status, b.ErrorCode, b.Message)
	}
	after := e.api.mustRouting(t)
	if after.MetadataVersion != before.MetadataVersion || after.ShardCount != 4 {
		t.Errorf("bad scales changed routing: %d shards at version %d, before 4 at %d", after.ShardCount, after.MetadataVersion, before.MetadataVersion)
	}
	migs := e.api.mustMigrations(t)
	if len(migs.Migrations) != 0 || migs.ActiveReshardingID != nil {
		t.Errorf("bad scales left migrations: %+v", migs)
	}

	n := 6
	status, raw, err := e.api.do("POST", "/coord/v1/streams/nosuch/scale", protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "test"}, nil)
	if err != nil || status != 404 {
		t.Errorf("scale of an unknown stream: %d %v: %s", status, err, raw)
	} else if b := errorBody(t, raw); b.ErrorCode != protocol.CodeStreamNotFound {
		t.Errorf("scale of an unknown stream: errorCode %s, want %s", b.ErrorCode, protocol.CodeStreamNotFound)
	}
	if _, err := e.api.migration("no-such-id"); err == nil {
		t.Errorf("GET of an unknown migration succeeded")
	}
	status, raw, _, err = e.api.rollback("no-such-id")
	if err != nil || status != 404 {
		t.Errorf("rollback of an unknown migration: %d %v: %s", status, err, raw)
	} else if b := errorBody(t, raw); b.ErrorCode != protocol.CodeMigrationNotFound {
		t.Errorf("rollback of an unknown migration: errorCode %s, want %s", b.ErrorCode, protocol.CodeMigrationNotFound)
	}
	// A rollback of a finished migration is no longer allowed.
	m := e.api.scale(t, 5)
	e.waitState(m.ReshardingID, 30*time.Second, protocol.MigrationDeprecated)
	status, raw, _, err = e.api.rollback(m.ReshardingID)
	if err != nil || status != 422 {
		t.Errorf("rollback of a DEPRECATED migration: %d %v: %s", status, err, raw)
	} else if b := errorBody(t, raw); b.ErrorCode != protocol.CodeRollbackNotAllowed {
		t.Errorf("rollback of a DEPRECATED migration: errorCode %s, want %s", b.ErrorCode, protocol.CodeRollbackNotAllowed)
	}
}

// Redis is down when a scale arrives: 503 with the error body, nothing
// activated; once Redis is back the same scale is accepted and completes.
func TestScaleWithRedisDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{Persist: true})
	e.api.createStream(t, 4)
	before := e.api.mustRouting(t)
	e.redis.Stop()
	n := 6
	status, raw, _, err := e.api.scaleRaw(protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "test", Reason: "redis down"})
	if err != nil || status != 503 {
		t.Errorf("scale with Redis down: status %d, err %v, want 503: %s", status, err, raw)
	} else {
		b := errorBody(t, raw)
		t.Logf("scale with Redis down: %s %s: %s", b.Status, b.ErrorCode, b.Message)
	}
	e.redis.Restart()
	e.retryAfterOutage(before, n)
}

// Redis goes away half-way through a scale-out (the coordinator's
// connection is cut as it sends a command naming the second new shard):
// 503, or 202 with a migration that does not activate while Redis is away.
// Once Redis is back the same scale is accepted and completes, and every
// shard stream it created is reported by a migration.
func TestScaleRedisCutMidProvisioning(t *testing.T) {
	t.Parallel()
	var proxy *redisProxy
	e := newEnv(t, envOptions{RedisAddr: func(real string) string {
		proxy = startRedisProxy(t, real)
		return proxy.Addr()
	}})
	e.api.createStream(t, 4)
	e.startMember("m0")
	e.waitOwned(4, 30*time.Second)
	before := e.api.mustRouting(t)

	n := 8
	proxy.Arm(protocol.StreamKey(prefix, 5) + "\r\n")
	status, raw, out, err := e.api.scaleRaw(protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "test", Reason: "cut"})
	// A coordinator that provisions after answering names the shard a
	// little later.
	if !waitFor(5*time.Second, func() bool { return proxy.Cuts() > 0 }) {
		t.Fatalf("the scale never named %s to Redis (status %d, err %v: %s)", protocol.StreamKey(prefix, 5), status, err, raw)
	}
	switch {
	case err == nil && status == 503:
		b := errorBody(t, raw)
		t.Logf("scale cut mid-provisioning: %s %s: %s", b.Status, b.ErrorCode, b.Message)
	case err == nil && status == 202:
		// Accepted before provisioning met the cut: the migration must not
		// activate while Redis is away, and goes on once it is back.
		m := scaleMigration(t, out, n)
		t.Logf("scale cut mid-provisioning was accepted first: %s", describe(m))
		time.Sleep(time.Second)
		proxy.Restore()
		e.waitUntil(30*time.Second, "routing answered after the outage", func() bool { _, err := e.api.routing(); return err == nil })
		done := e.waitState(m.ReshardingID, 45*time.Second, protocol.MigrationDeprecated)
		e.checkHistory(done, before.ShardCount, n, protocol.MigrationDeprecated)
		for _, h := range done.History {
			if h.State == protocol.MigrationActive {
				if at, err := time.Parse(time.RFC3339Nano, h.At); err == nil && at.Before(proxy.RestoredAt()) {
					t.Errorf("the migration became ACTIVE at %s, while Redis was cut", h.At)
				}
			}
		}
		e.checkNewShards(before, n)
		return
	default:
		t.Fatalf("scale cut mid-provisioning: status %d, err %v: %s", status, err, raw)
	}
	time.Sleep(time.Second) // Redis stays away a while
	proxy.Restore()
	e.retryAfterOutage(before, n)
}

// retryAfterOutage checks, once Redis is reachable again, that nothing was
// activated by the failed scale to n, then repeats it and waits for it to
// complete.
func (e *env) retryAfterOutage(before protocol.ProducerRouting, n int) {
	t := e.t
	t.Helper()
	var r protocol.ProducerRouting
	e.waitUntil(30*time.Second, "routing answered after the outage", func() bool {
		var err error
		r, err = e.api.routing()
		return err == nil
	})
	if r.ShardCount != before.ShardCount || r.MetadataVersion != before.MetadataVersion {
		// A migration accepted before the outage may have gone on since;
		// it must then be listed and be past PREPARING.
		migs := e.api.mustMigrations(t)
		if len(migs.Migrations) == 0 || migs.Migrations[0].State == protocol.MigrationPreparing {
			t.Errorf("routing changed to %d shards at version %d with no activated migration: %+v", r.ShardCount, r.MetadataVersion, migs)
		}
	}
	var out protocol.ScaleResponse
	var status int
	var raw []byte
	e.waitUntil(30*time.Second, "the retried scale accepted", func() bool {
		var err error
		status, raw, out, err = e.api.scaleRaw(protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "test", Reason: "retry"})
		return err == nil && status != 503
	})
	var m protocol.Migration
	switch {
	case status == 202:
		m = scaleMigration(t, out, n)
	case status == 409 || status == 400:
		// The scale that answered 503 had recorded its migration (PREPARING,
		// its shards listed) and a driver took it on once Redis was back,
		// faster than the retry: the retry then meets it running (409) or
		// finished (400, the stream already has n shards). It must be that
		// migration, to n.
		migs := e.api.mustMigrations(t)
		if len(migs.Migrations) == 0 || migs.Migrations[0].ToShardCount != n {
			t.Fatalf("retried scale to %d: status %d with no migration to %d: %s; %+v", n, status, n, raw, migs)
		}
		m = migs.Migrations[0]
		t.Logf("the failed scale's migration went on by itself (%s); the retry answered %d: %s", m.State, status, raw)
	default:
		t.Fatalf("retried scale to %d: status %d: %s", n, status, raw)
	}
	done := e.waitState(m.ReshardingID, 45*time.Second, protocol.MigrationDeprecated)
	e.checkHistory(done, before.ShardCount, n, protocol.MigrationDeprecated)
	e.checkNewShards(before, n)
}

// checkNewShards checks, after a scale-out from before to n completed, the
// routing, that every new shard carries the group's consumer group, and
// that no shard stream is left unreported.
func (e *env) checkNewShards(before protocol.ProducerRouting, n int) {
	t := e.t
	t.Helper()
	after := e.api.mustRouting(t)
	if after.ShardCount != n || after.MetadataVersion <= before.MetadataVersion {
		t.Errorf("after the scale routing has %d shards at version %d (before: %d at %d)", after.ShardCount,
			after.MetadataVersion, before.ShardCount, before.MetadataVersion)
	}
	// Every new shard carries the group's consumer group.
	ctx := context.Background()
	for s := before.ShardCount; s < n; s++ {
		groups, err := e.redis.Client().XInfoGroups(ctx, protocol.StreamKey(prefix, s)).Result()
		found := false
		for _, g := range groups {
			found = found || g.Name == group
		}
		if err != nil || !found {
			t.Errorf("shard %d: consumer group %s missing (%v)", s, group, err)
		}
	}
	migs := e.api.mustMigrations(t)
	e.checkNoOrphans(n, migs.Migrations)
}

// Concurrent scales of one stream to different counts: exactly one is
// accepted, every other one is refused with 409 (the accepted one cannot
// finish before the others arrive: a routing grace lies between), and the
// stream ends at the accepted count with one migration recorded.
func TestConcurrentScalesOneWins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.api.createStream(t, 4)
	e.api.mustRouting(t)
	targets := []int{2, 3, 5, 6, 7, 8}
	type answer struct {
		n      int
		status int
		raw    []byte
		m      protocol.ScaleResponse
	}
	answers := make(chan answer, len(targets))
	start := make(chan struct{})
	for _, n := range targets {
		go func() {
			<-start
			status, raw, out, err := e.api.scaleRaw(protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "test", Reason: "race"})
			if err != nil {
				status = 0
			}
			answers <- answer{n, status, raw, out}
		}()
	}
	close(start)
	var won []answer
	for range targets {
		a := <-answers
		switch a.status {
		case 202:
			won = append(won, a)
		case 409:
			if b := errorBody(t, a.raw); b.ErrorCode != protocol.CodeMigrationActive {
				t.Errorf("scale to %d: 409 with %s", a.n, b.ErrorCode)
			}
		default:
			t.Errorf("scale to %d: status %d: %s", a.n, a.status, a.raw)
		}
	}
	if len(won) != 1 {
		t.Fatalf("%d concurrent scales accepted, want exactly 1: %+v", len(won), won)
	}
	m := scaleMigration(t, won[0].m, won[0].n)
	e.waitState(m.ReshardingID, 30*time.Second, protocol.MigrationDeprecated)
	if r := e.api.mustRouting(t); r.ShardCount != won[0].n {
		t.Errorf("routing has %d shards, the accepted scale was to %d", r.ShardCount, won[0].n)
	}
	if migs := e.api.mustMigrations(t); len(migs.Migrations) != 1 {
		t.Errorf("%d migrations recorded, want 1: %+v", len(migs.Migrations), migs)
	}
}
