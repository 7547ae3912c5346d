package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
