package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// groups create --assignment and groups assignment against a real coordinator process and a
// real redis-server: the mode is set, shown by describe, switched, and a bad one refused
// before any request.
func TestGroupsAssignment(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a coordinator process")
	}
	isolate(t)
	rs := redistest.Start(t)
	coord := harness.StartCoordinator(t, harness.Options{RedisAddr: rs.Addr()})
	sc := func(args ...string) result {
		t.Helper()
		return ctl(t, append([]string{"--url", coord.URL(), "--requested-by", "alice"}, args...)...)
	}
	require.Equal(t, 0, sc("streams", "create", "orders", "--shards", "4").code)
	r := sc("groups", "create", "orders", "billing", "--assignment", "capacity")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "capacity assignment")
	r = sc("groups", "describe", "orders", "billing")
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `assignment:\s+capacity`, r.stdout)

	r = sc("-o", "json", "groups", "assignment", "orders", "billing", "uniform", "--reason", "compare")
	require.Equal(t, 0, r.code, r.stderr)
	var g protocol.GroupResponse
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &g), r.stdout)
	require.Equal(t, protocol.AssignmentUniform, g.Assignment)
	r = sc("groups", "assignment", "orders", "billing", "capacity")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "now uses capacity assignment")

	r = sc("groups", "assignment", "orders", "billing", "fair")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "give uniform")
	require.Equal(t, 3, sc("groups", "assignment", "orders", "ghost", "capacity").code, "unknown group: 404")
	r = sc("groups", "create", "orders", "other", "--assignment", "weighted")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "is not a mode")
}
