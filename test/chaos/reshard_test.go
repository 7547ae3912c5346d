package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
)

// FaultReshard is a resharding operation among the faults: a scale of the
// stream to Fault.Shards (POST …/scale), or with Fault.Rollback the
// rollback of the migration in progress, if any. It is instantaneous (For
// 0): the migration then runs while the other faults go on. At most one
// migration runs at a time; an operation that finds one running is refused
// with 409, which the report counts (reshardOutcomes) like every other
// answer. Reshard operations come from their own generator
// (GenerateReshards, its own random source), so a seed's other faults are
// the same with or without them.
const FaultReshard FaultKind = "reshard"

// ReshardConfig is what the reshard operations are generated from.
type ReshardConfig struct {
	Seed     int64
	Duration time.Duration // fault phase; the last operation is at least Tail before its end
	Start    int           // shard count at the start
	Min, Max int           // every scale targets a count in [Min, Max]
	// Gap bounds the time between two operations (default 6–12 s: a
	// scale-in needs the routing grace and a drain before the next).
	GapMin, GapMax time.Duration
	Tail           time.Duration // default 8 s
}

// reshardSeedSalt separates the reshard generator's random source from the
// fault generator's.
const reshardSeedSalt = 0x7e5a7d

// GenerateReshards plans reshard operations from cfg: scales, the first
// about 3 s into the fault phase, then one every GapMin–GapMax, the last at
// least Tail before the end, each to a count in [Min, Max] other than the
// one the plan expects then (out or in, drawn). One scale in four is
// followed 0.3–1.5 s later, while its migration still runs, by a rollback
// of it, which the plan takes back. The plan assumes every operation
// succeeds; one refused at run time (409 while a migration runs) leaves the
// stream elsewhere, and a later scale may then target the current count
// (400, counted).
func GenerateReshards(cfg ReshardConfig) []Fault {
	if cfg.GapMin <= 0 {
		cfg.GapMin = 6 * time.Second
	}
	if cfg.GapMax <= cfg.GapMin {
		cfg.GapMax = 12 * time.Second
	}
	if cfg.Tail <= 0 {
		cfg.Tail = 8 * time.Second
	}
	if cfg.Max <= cfg.Min {
		return nil
	}
	rng := rand.New(rand.NewSource(cfg.Seed ^ reshardSeedSalt))
	cur := cfg.Start
	var out []Fault
	for t := 3 * time.Second; t <= cfg.Duration-cfg.Tail; t += cfg.GapMin + time.Duration(rng.Int63n(int64(cfg.GapMax-cfg.GapMin))).Round(10*time.Millisecond) {
		n := cfg.Min + rng.Intn(cfg.Max-cfg.Min)
		if n >= cur {
			n++ // [Min, Max] without cur
		}
		if n > cfg.Max {
			n = cfg.Min
		}
		out = append(out, Fault{At: t, Kind: FaultReshard, Target: "stream", Shards: n})
		if rng.Intn(4) == 0 {
			back := t + 300*time.Millisecond + time.Duration(rng.Int63n(int64(1200*time.Millisecond))).Round(10*time.Millisecond)
			out = append(out, Fault{At: back, Kind: FaultReshard, Target: "stream", Shards: cur, Rollback: true})
			continue // the plan stays at cur
		}
		cur = n
	}
	return out
}

// reshardTimeout bounds one admin request of a reshard operation per
// coordinator (a paused node accepts and never answers).
const reshardTimeout = 3 * time.Second

// injectReshard runs one reshard operation against the first coordinator
// that answers and returns its outcome: the HTTP status (e.g. "202",
// "409 ACTIVE_MIGRATION_EXISTS"), "none active" for a rollback with no
// migration running, or "unanswered".
func (c *cluster) injectReshard(f Fault) string {
	base := "/coord/v1/streams/" + c.cfg.Prefix
	for _, u := range c.coordinatorURLs() {
		cl := harness.NewClient(u)
		cl.HTTP = &http.Client{Timeout: reshardTimeout}
		var status int
		var raw []byte
		var err error
		if f.Rollback {
			var migs protocol.MigrationsResponse
			status, raw, err = cl.Do("GET", "/coord/v1/monitoring/streams/"+c.cfg.Prefix+"/groups/"+c.cfg.Group+"/migrations", nil, &migs)
			if err != nil || status != 200 {
				continue
			}
			if migs.ActiveReshardingID == nil {
				return "none active"
			}
			status, raw, err = cl.Do("POST", base+"/groups/"+c.cfg.Group+"/migrations/"+*migs.ActiveReshardingID+"/rollback",
				protocol.RollbackRequest{RequestedBy: "chaos", Reason: "chaos rollback"}, nil)
		} else {
			n := f.Shards
			status, raw, err = cl.Do("POST", base+"/scale", protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "chaos",
				Reason: fmt.Sprintf("chaos scale to %d", n)}, nil)
		}
		if err != nil || status == http.StatusBadGateway {
			continue
		}
		out := strconv.Itoa(status)
		if status/100 != 2 {
			var b protocol.ErrorBody
			if jsonErr := json.Unmarshal(raw, &b); jsonErr == nil && b.ErrorCode != "" {
				out += " " + b.ErrorCode
			}
		}
		return out
	}
	return "unanswered"
}

// migrationsOf reads the group's migrations from the first coordinator
// that answers.
func (c *cluster) migrationsOf(ctx context.Context) (protocol.MigrationsResponse, error) {
	var last error = fmt.Errorf("no coordinator answered")
	for _, u := range c.coordinatorURLs() {
		cl := harness.NewClient(u)
		cl.HTTP = &http.Client{Timeout: reshardTimeout}
		var migs protocol.MigrationsResponse
		status, raw, err := cl.Do("GET", "/coord/v1/monitoring/streams/"+c.cfg.Prefix+"/groups/"+c.cfg.Group+"/migrations", nil, &migs)
		if err == nil && status == 200 {
			return migs, nil
		}
		last = fmt.Errorf("%s: %d %v %s", u, status, err, raw)
	}
	return protocol.MigrationsResponse{}, last
}

// shardCount reads the stream's current shard count from producer routing.
func (c *cluster) shardCount() (int, error) {
	var last error = fmt.Errorf("no coordinator answered")
	for _, u := range c.coordinatorURLs() {
		cl := harness.NewClient(u)
		cl.HTTP = &http.Client{Timeout: reshardTimeout}
		var r protocol.ProducerRouting
		status, raw, err := cl.Do("GET", "/coord/v1/streams/"+c.cfg.Prefix+"/groups/"+c.cfg.Group+"/producer-routing", nil, &r)
		if err == nil && status == 200 {
			return r.ShardCount, nil
		}
		last = fmt.Errorf("%s: %d %v %s", u, status, err, raw)
	}
	return 0, last
}

// migrationSummary is one migration in the report.
type migrationSummary struct {
	ID    string   `json:"reshardingId"`
	From  int      `json:"from"`
	To    int      `json:"to"`
	State string   `json:"state"`
	Steps []string `json:"steps"`
}

// reshardFigures are the report's resharding part.
type reshardFigures struct {
	// ReshardOutcomes counts the reshard operations' answers: "202", "409
	// ACTIVE_MIGRATION_EXISTS" (one was running), "400 …" (the plan's
	// target was the current count after a refusal), "none active" (a
	// rollback with nothing running), "422 ROLLBACK_NOT_ALLOWED", ….
	ReshardOutcomes map[string]int `json:"reshardOutcomes"`
	// Migrations lists every migration of the run, oldest first.
	Migrations      []migrationSummary `json:"migrations"`
	FinalShardCount int                `json:"finalShardCount"`
	// MigrationsSettleSeconds is the wait, after the last fault, until no
	// migration was running.
	MigrationsSettleSeconds float64 `json:"migrationsSettleSeconds"`
}

// waitMigrations waits until no migration of the group is running and
// returns the migrations (oldest first) and the shard count then.
func (c *cluster) waitMigrations(timeout time.Duration) (protocol.MigrationsResponse, int, error) {
	ctx := context.Background()
	var migs protocol.MigrationsResponse
	var err error
	ok := waitForEvery(timeout, 200*time.Millisecond, func() bool {
		migs, err = c.migrationsOf(ctx)
		return err == nil && migs.ActiveReshardingID == nil
	})
	if err != nil {
		return migs, 0, err
	}
	if !ok {
		return migs, 0, fmt.Errorf("migration %s still running %s after the last fault", *migs.ActiveReshardingID, timeout)
	}
	n, err := c.shardCount()
	return migs, n, err
}

// summarize lists migrations oldest first.
func summarize(ms []protocol.Migration) []migrationSummary {
	sorted := append([]protocol.Migration(nil), ms...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, _ := time.Parse(time.RFC3339Nano, sorted[i].CreatedAt)
		b, _ := time.Parse(time.RFC3339Nano, sorted[j].CreatedAt)
		return a.Before(b)
	})
	out := []migrationSummary{}
	for _, m := range sorted {
		s := migrationSummary{ID: m.ReshardingID, From: m.FromShardCount, To: m.ToShardCount, State: m.State, Steps: []string{}}
		for _, h := range m.History {
			s.Steps = append(s.Steps, h.State+" "+h.At)
		}
		out = append(out, s)
	}
	return out
}

// incarnationsOf reads the shard incarnations of the run (a shard retired
// and created again is checked apart, see recorder.Incarnations).
func (c *cluster) incarnationsOf(ctx context.Context, migs []protocol.Migration) (*recorder.Incarnations, error) {
	return recorder.ReadIncarnations(ctx, c.rdb, c.cfg.Prefix, migs)
}

// streamOf is the stream key holding the entries of a shard label (see
// recorder.Incarnations): the live key, or a retired one.
func (c *cluster) streamOf(label int) string {
	if c.inc == nil {
		return protocol.StreamKey(c.cfg.Prefix, label)
	}
	return c.inc.Key(label)
}

// alwaysLive is the number of shards that live through the whole run:
// reshard operations never scale below ReshardMin.
func alwaysLive(cfg config) int {
	if cfg.ReshardMax > 0 {
		return min(cfg.Shards, cfg.ReshardMin)
	}
	return cfg.Shards
}
