package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// Without a group, migrations, migration and rollback use the stream's own
// routes (a stream with no group has migrations too); a finished migration
// reads as completed.
func TestMigrationsOfAStream(t *testing.T) {
	isolate(t)
	f := newFakeAPI(t)
	done := strings.Replace(strings.Replace(migrationJSON, `"state":"DRAINING"`, `"state":"DEPRECATED"`, 1), `"consumerGroup":"billing",`, "", 1)
	done = strings.Replace(done, `"reshardingId":"rs-7"`, `"reshardingId":"rs-6"`, 1)
	f.on("GET", "/coord/v1/streams/orders/migrations", 200, `{"migrations":[`+migrationJSON+`,`+done+`],"activeReshardingId":"rs-7"}`)
	f.on("GET", "/coord/v1/streams/orders/migrations/rs-6", 200, done)
	f.on("POST", "/coord/v1/streams/orders/migrations/rs-7/rollback", 202, strings.Replace(migrationJSON, `"state":"DRAINING"`, `"state":"ROLLING_BACK"`, 1))

	r := ctl(t, "--url", f.URL, "migrations", "orders")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `rs-7 \*\s+billing\s+4\s+2\s+DRAINING`, r.stdout)
	require.Regexp(t, `rs-6\s+-\s+4\s+2\s+completed \(DEPRECATED\)`, r.stdout)
	require.Contains(t, r.stdout, "active: rs-7 (streamctl migration orders rs-7)")

	r = ctl(t, "--url", f.URL, "migration", "orders", "rs-6")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "state:           completed (DEPRECATED)")

	r = ctl(t, "--url", f.URL, "--requested-by", "bob", "rollback", "orders", "rs-7")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "POST /coord/v1/streams/orders/migrations/rs-7/rollback", f.last(t).Method+" "+f.last(t).Path)
	require.Contains(t, r.stdout, "ROLLING_BACK")

	r = ctl(t, "--url", f.URL, "migration", "orders")
	require.Equal(t, 2, r.code, "one argument is a usage error")
	require.Contains(t, r.stderr, "PREFIX [GROUP] ID")
}

// Against a real coordinator process: a stream with no group is scaled out
// and 'streamctl migrations P' shows the migration, completed, without a
// group; naming a group that does not exist is 404 (exit 3).
func TestMigrationsOfAGrouplessStreamAgainstRealCoordinator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a coordinator process")
	}
	isolate(t)
	rs := redistest.Start(t)
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: rs.Addr()})
	sc := func(args ...string) result {
		t.Helper()
		return ctl(t, append([]string{"--url", coord.URL()}, args...)...)
	}
	r := sc("streams", "create", "bare", "--shards", "2")
	require.Equal(t, 0, r.code, r.stderr)
	r = sc("scale", "bare", "3")
	require.Equal(t, 0, r.code, r.stderr)
	require.Eventually(t, func() bool {
		r = sc("migrations", "bare")
		return r.code == 0 && strings.Contains(r.stdout, "completed (DEPRECATED)")
	}, 20*time.Second, 100*time.Millisecond, "the scale-out of a stream without groups: %s %s", r.stdout, r.stderr)
	require.Regexp(t, `rs-1\s+-\s+2\s+3\s+completed \(DEPRECATED\)`, r.stdout)
	r = sc("migration", "bare", "rs-1")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "2 → 3")
	require.Equal(t, 3, sc("migrations", "bare", "nobody").code, "an unknown group: 404")
	require.Equal(t, 3, sc("migration", "bare", "rs-9").code, "an unknown migration: 404")
	r = sc("rollback", "bare", "rs-1")
	require.Equal(t, 1, r.code, "a finished migration cannot be rolled back")
	require.Contains(t, r.stderr, "ROLLBACK_NOT_ALLOWED")
}
