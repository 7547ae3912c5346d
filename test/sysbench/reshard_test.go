package sysbench

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// The reshard scenario's stream: reshardGroups groups of reshardMembers
// members on loadShards shards, scaled to reshardTo and back. A short routing
// grace (the production default is 1m, above producers' 30 s routing cache)
// and a short driver poll, so that the figures show the coordinator's own
// steps rather than those two waits.
const (
	reshardGroups  = 10
	reshardMembers = 4
	reshardTo      = 128
	reshardGrace   = 2 * time.Second
	reshardPoll    = 100 * time.Millisecond
)

// scaleFigures mirrors simmembers' result of one scale (ms from the request).
type scaleFigures struct {
	From, To     int
	TargetsMs    float64 `json:"targetsMs"`
	OwnedMs      float64 `json:"ownedMs"`
	DeprecatedMs float64 `json:"deprecatedMs"`
	Steps        []struct {
		State string  `json:"state"`
		Ms    float64 `json:"ms"`
	} `json:"steps"`
}

func runReshard(t *testing.T, p params) map[string]json.RawMessage {
	c := coordinator(t, p.Interval, p.LeaseTTL, loadShards,
		"RSC_RESHARDING_ROUTING_GRACE", reshardGrace.String(), "RSC_RESHARDING_POLL_INTERVAL", reshardPoll.String())
	out := map[string]json.RawMessage{}
	sim(t, &out, "-scenario", "reshard", "-url", c.URL(), "-shards", fmt.Sprint(loadShards), "-to", fmt.Sprint(reshardTo),
		"-groups", fmt.Sprint(reshardGroups), "-members", fmt.Sprint(reshardMembers))
	for k, v := range out {
		t.Logf("BENCH reshard %s=%s", k, v)
	}
	c.Kill()
	return out
}
