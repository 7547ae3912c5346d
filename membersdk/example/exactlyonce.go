package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk"
)

// exactlyOnceHandler is the -exactly-once pipeline: for every entry, one
// output entry in {<shard stream>}:out, committed with the entry's
// acknowledgement (membersdk.TxConfig), so that a redelivery writes nothing
// twice.
func exactlyOnceHandler(log *slog.Logger) membersdk.Handler {
	return func(ctx context.Context, m membersdk.Message) error {
		out := map[string]any{"from": m.ID}
		for k, v := range m.Values {
			out[k] = strings.ToUpper(fmt.Sprint(v)) // the "transform"
		}
		if err := m.Tx.XAdd(m.Tx.Key("out"), out); err != nil {
			return err
		}
		log.Debug("handled", "shard", m.Shard, "id", m.ID, "delivery", m.DeliveryCount)
		return nil
	}
}

// countCheckScript compares, atomically on the shard's node, the entries
// the group acknowledged with the outputs: KEYS = {stream, output};
// ARGV = {group}. Acknowledged = entries up to the group's
// last-delivered-id, less those still pending. Replies {acknowledged,
// outputs}, or {-1, outputs} without the group.
var countCheckScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, redis.call('XLEN', KEYS[2])} end
local function field(arr, name)
  for i = 1, #arr, 2 do if arr[i] == name then return arr[i + 1] end end
end
for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  if field(g, 'name') == ARGV[1] then
    local delivered = #redis.call('XRANGE', KEYS[1], '-', field(g, 'last-delivered-id'))
    return {delivered - field(g, 'pending'), redis.call('XLEN', KEYS[2])}
  end
end
return {-1, redis.call('XLEN', KEYS[2])}
`)

// countCheck prints, per shard that has outputs, the entries the group
// acknowledged and the outputs written: with -exactly-once they are equal
// however often members were killed or entries redelivered. ok is false
// when a shard differs.
func countCheck(ctx context.Context, rc redis.UniversalClient, stream, group string) (string, bool) {
	var mu sync.Mutex
	var outs []string
	scan := func(ctx context.Context, c redis.Cmdable) error {
		it := c.Scan(ctx, 0, "{"+stream+":*}:out", 1000).Iterator()
		for it.Next(ctx) {
			mu.Lock()
			outs = append(outs, it.Val())
			mu.Unlock()
		}
		return it.Err()
	}
	var err error
	if cc, ok := rc.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return scan(ctx, c) })
	} else {
		err = scan(ctx, rc)
	}
	if err != nil {
		return "exactly-once check: cannot list the outputs: " + err.Error(), false
	}
	sort.Strings(outs)
	var b strings.Builder
	ok := true
	var acked, written int64
	for _, out := range outs {
		in := strings.TrimSuffix(strings.TrimPrefix(out, "{"), "}:out")
		res, err := countCheckScript.Run(ctx, rc, []string{in, out}, group).Int64Slice()
		if err != nil || len(res) != 2 {
			fmt.Fprintf(&b, "  %s: cannot count (%v)\n", in, err)
			ok = false
			continue
		}
		mark := "ok"
		if res[0] != res[1] {
			mark, ok = "MISMATCH", false
		}
		acked, written = acked+res[0], written+res[1]
		fmt.Fprintf(&b, "  %s: %d acknowledged, %d outputs  %s\n", in, res[0], res[1], mark)
	}
	verdict := "OK: one output per acknowledged entry"
	if !ok {
		verdict = "FAILED: outputs and acknowledgements differ"
	}
	return fmt.Sprintf("exactly-once check (%s): %d acknowledged, %d outputs in %d shards — %s\n%s",
		time.Now().Format("15:04:05"), acked, written, len(outs), verdict, b.String()), ok
}

// idempotentProducerID names this process's producer for -exactly-once:
// its publishes are idempotent, one live producer per id.
func idempotentProducerID(memberID string) string {
	if memberID != "" {
		return "example-" + memberID
	}
	host, _ := os.Hostname()
	return "example-" + host + "-" + strconv.Itoa(os.Getpid())
}
