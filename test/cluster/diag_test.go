package cluster

import (
	"fmt"
	"strings"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// within returns the exchanges sent or received between from and to.
func within(ex []harness.Exchange, from, to time.Time) []harness.Exchange {
	var out []harness.Exchange
	for _, e := range ex {
		if !e.RecvAt.Before(from) && !e.SentAt.After(to) {
			out = append(out, e)
		}
	}
	return out
}

// nodeLogs returns every node's log lines (slog text, "time=…" first) stamped
// between from and to, race reports left out, for failure messages.
func (w *world) nodeLogs(from, to time.Time) string {
	var b strings.Builder
	for i, n := range w.cl.Nodes {
		for _, line := range strings.Split(n.Logs(), "\n") {
			rest, ok := strings.CutPrefix(line, "time=")
			if !ok {
				continue
			}
			stamp, _, _ := strings.Cut(rest, " ")
			at, err := time.Parse(time.RFC3339Nano, stamp)
			if err != nil || at.Before(from) || at.After(to) {
				continue
			}
			fmt.Fprintf(&b, "n%d %s\n", i+1, line)
		}
	}
	return b.String()
}

func describeExchanges(ex []harness.Exchange, last int) string {
	if len(ex) > last {
		ex = ex[len(ex)-last:]
	}
	var b strings.Builder
	for _, e := range ex {
		fmt.Fprintf(&b, "%s %s → %s epoch=%d owned=%v", clock(e.SentAt), e.Member, e.URL, e.Request.MemberEpoch, protocol.Indexes(e.Request.OwnedShards))
		if len(e.Request.RevokingShards) > 0 {
			// Still draining: a shard listed here is not released, however "owned" reads.
			var rv []int
			for _, r := range e.Request.RevokingShards {
				rv = append(rv, r.Shard.ShardIndex)
			}
			fmt.Fprintf(&b, " revoking=%v", rv)
		}
		b.WriteString(": ")
		switch {
		case e.Err != nil:
			fmt.Fprintf(&b, "error %v", e.Err)
		case e.HTTPStatus != 200:
			fmt.Fprintf(&b, "HTTP %d", e.HTTPStatus)
		default:
			r := e.Response
			fmt.Fprintf(&b, "%s epoch=%d group=%d assigned=%v pending=%v %s", r.Status, r.MemberEpoch, r.GroupEpoch,
				protocol.Indexes(r.Assignment.AssignedShards), protocol.Indexes(r.Assignment.PendingShards), r.Message)
		}
		fmt.Fprintf(&b, " (%s)\n", e.RecvAt.Sub(e.SentAt).Round(time.Millisecond))
	}
	return b.String()
}
