package membersdk

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// blockedReads is how many clients of rc's Redis server are blocked in
// XREADGROUP right now (CLIENT LIST: cmd=xreadgroup, flag b). Each test
// has a redis-server of its own, so these are the test's readers.
func blockedReads(t *testing.T, rc *redis.Client) int {
	t.Helper()
	list, err := rc.ClientList(context.Background()).Result()
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(list, "\n") {
		var cmd, flags string
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "cmd="); ok {
				cmd = v
			}
			if v, ok := strings.CutPrefix(f, "flags="); ok {
				flags = v
			}
		}
		if cmd == "xreadgroup" && strings.Contains(flags, "b") {
			n++
		}
	}
	return n
}
