package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// Sizes of the run; RSC_BENCH_QUICK=1 shrinks them for a smoke run.
type sizes struct {
	consumeN, produceN, latencyN int
	rounds, shutdowns            int
	rate                         int // entries per second in the latency run
	ackRounds, ackRound          int // fenced-ack rounds, ids per round
	consumeRounds                int // consume rounds per batch size (odd: a clean median)
	raceN, raceRounds            int // side-by-side consume: entries per stream, windows
	raceWindow                   time.Duration
}

func benchSizes() sizes {
	if os.Getenv("RSC_BENCH_QUICK") == "1" {
		return sizes{consumeN: 20_000, consumeRounds: 3, produceN: 5_000, latencyN: 500, rounds: 1, shutdowns: 3, rate: 1000, ackRounds: 5, ackRound: 4_000,
			raceN: 150_000, raceRounds: 3, raceWindow: 150 * time.Millisecond}
	}
	return sizes{consumeN: 40_000, consumeRounds: 11, produceN: 20_000, latencyN: 3_000, rounds: 5, shutdowns: 7, rate: 1000, ackRounds: 15, ackRound: 20_000,
		raceN: 250_000, raceRounds: 9, raceWindow: 250 * time.Millisecond}
}

const group = "bench"

// runs reports whether the section name is part of this run:
// RSC_BENCH_ONLY=fencedack,consume runs only those (default: all).
func runs(name string) bool {
	only := os.Getenv("RSC_BENCH_ONLY")
	return only == "" || slices.Contains(strings.Split(only, ","), name)
}

// BenchmarkDataPlane runs every data-plane comparison once (use -benchtime 1x)
// and prints a table of figures and ratios; see the package doc.
func BenchmarkDataPlane(b *testing.B) {
	sz := benchSizes()
	srv := redistest.Start(b)
	rc := srv.NewClient(nil)
	b.Cleanup(func() { _ = rc.Close() })
	coord := newStaticCoord(b, map[string]int{"consume": 1, "race": 1, "txpipe": 1, "produce": 8, "shutdown": 1, "latency": 1})
	env := &env{b: b, srv: srv, rc: rc, coord: coord}
	var rep report
	rep.add("machine", fmt.Sprintf("%d CPU (GOMAXPROCS %d), %s, %s", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), loadAvg()))

	if runs("consume") {
		for _, batch := range []int64{16, 128} {
			env.consume(&rep, sz, batch)
		}
	}
	if runs("race") {
		for _, batch := range []int64{16, 128} {
			env.consumeRace(&rep, sz, batch)
		}
	}
	if runs("pipeline") {
		for _, batch := range []int64{16, 128} {
			env.txPipeline(&rep, sz, batch)
		}
	}
	if runs("fencedack") {
		env.fencedAck(&rep, sz)
	}
	if runs("produce") {
		env.produce(&rep, sz)
	}
	if runs("shutdown") {
		env.shutdown(&rep, sz)
	}
	if runs("latency") {
		env.latency(&rep, sz)
	}
	fmt.Print(rep.String())
	b.ReportMetric(0, "ns/op") // the figures are in the table, not per op
}

type env struct {
	b       *testing.B
	lastCPU time.Duration // CPU per entry of the last consume round
	srv     *redistest.Server
	rc      *redis.Client
	coord   *staticCoord
}

// consumerConfig is an SDK consumer of one benchmark stream.
func (e *env) consumerConfig(prefix, grp string, batch int64) membersdk.ConsumerConfig {
	return membersdk.ConsumerConfig{
		CoordinatorURLs: []string{e.coord.url()},
		StreamPrefix:    prefix,
		ConsumerGroup:   grp,
		MemberID:        "bench-m0",
		Redis:           e.rc,
		BatchSize:       batch,
	}
}

// runConsumer starts c.Run; stop cancels it and waits for Run to return.
func runConsumer(b *testing.B, c *membersdk.Consumer) (stop func() time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	return func() time.Duration {
		t0 := time.Now()
		cancel()
		if err := <-done; err != nil {
			b.Fatalf("consumer Run: %v", err)
		}
		return time.Since(t0)
	}
}

// cpuTime is the user+system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load average unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "load average unknown"
	}
	return "load average " + strings.Join(f[:3], " ")
}
