package sysbench

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// runHandoffs runs the hand-off scenario twice on one coordinator with the Redis mailbox on:
// members heartbeating over HTTP (group g), then members heartbeating through the mailbox
// (group gm), which the coordinator nudges when a leave frees shards for them
// (docs/PROTOCOL.md, Nudges). Same process, same timings: the two figures compare.
func runHandoffs(t *testing.T, p params) (httpOut, mailboxOut map[string]json.RawMessage) {
	const shards = 8
	redis := redistest.Start(t)
	c := harness.StartCoordinator(t, harness.Options{RedisAddr: redis.Addr(), Env: map[string]string{
		"RSC_LOG_LEVEL":                       "warn",
		"RSC_COORDINATION_HEARTBEAT_INTERVAL": p.Interval.String(),
		"RSC_COORDINATION_MEMBER_LEASE_TTL":   p.LeaseTTL.String(),
		"RSC_COORDINATION_REBALANCE_TIMEOUT":  "30s",
		"RSC_DEFAULTS_INITIAL_SHARD_COUNT":    fmt.Sprint(shards),
		"RSC_MAILBOX_ENABLED":                 "true",
	}})
	harness.NewClient(c.URL()).CreateStream(t, "bench", shards)
	defer c.Kill()
	run := func(transport, group string) map[string]json.RawMessage {
		out := map[string]json.RawMessage{}
		sim(t, &out, "-scenario", "handoff", "-url", c.URL(), "-shards", fmt.Sprint(shards), "-cycles", fmt.Sprint(p.Cycles),
			"-transport", transport, "-redis", redis.Addr(), "-group", group)
		for k, v := range out {
			t.Logf("BENCH handoff/%s %s=%s", transport, k, v)
		}
		return out
	}
	return run("http", "g"), run("redis", "gm")
}

// mailboxHandoffRow is the markdown row of the mailbox members' hand-off after a leave,
// against the HTTP members' figure of the same run.
func mailboxHandoffRow(r *report) string {
	if r.HandoffMailbox == nil {
		return ""
	}
	m, h := lat(r.HandoffMailbox, "moveAfterLeave"), lat(r.Handoff, "moveAfterLeave")
	ratio := 0.0
	if h.MedianMs > 0 {
		ratio = m.MedianMs / h.MedianMs
	}
	return fmt.Sprintf("| hand-off after a leave, members on the Redis mailbox (nudged when the leave frees shards for them): leave → another member's reply lists the shard (%d samples) | median %.0f ms, p90 %.0f ms, max %.0f ms | heartbeat interval %d ms; the HTTP members above, same coordinator: median %.0f ms | median %.2f×, p90 %.2f× the interval; median %.2f× HTTP's | median ≤ 0.2× | %s |\n",
		m.Samples, m.MedianMs, m.P90Ms, m.MaxMs, m.IntervalMs, h.MedianMs, m.MedianPerInt, m.P90PerInt, ratio, verdict(m.Samples > 0 && m.MedianPerInt <= 0.2))
}
