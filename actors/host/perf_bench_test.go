package host

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redisstream/coordinator/test/benchresult"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// Benchmarks of the node's memory per member and of its Redis reads with many idle groups.
// They are tests behind environment variables (not run by `go test` otherwise): each builds
// the in-process host on a real redis-server. docs/BENCHMARKS.md shows the commands and figures.

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	return n
}

// defaultRules are the coordinator's default timings (config.Default): 3 s heartbeat, 15 s lease.
var defaultRules = model.Config{HeartbeatInterval: 3 * time.Second, LeaseTTL: 15 * time.Second,
	RebalanceTimeout: 60 * time.Second, Retention: time.Hour}

// simMember is what a simulated member keeps between heartbeats, and its id (made once, with the
// fleet: the simulated members' own garbage is not the node's).
type simMember struct {
	id    string
	epoch int64
	owned []protocol.ShardID
}

// perfFleet drives members of many groups through one host, groups in parallel.
type perfFleet struct {
	h       *Host
	groups  int
	members int
	names   []string // perfGroup of each group
	state   [][]simMember
	bad     atomic.Int64
	// progress: heartbeats carry a shardProgress row per owned shard, as the member SDK's do
	// (fresh strings each time, as decoded from JSON).
	progress bool
}

func newPerfFleet(h *Host, groups, members int) *perfFleet {
	f := &perfFleet{h: h, groups: groups, members: members, names: make([]string, groups), state: make([][]simMember, groups)}
	for g := range f.state {
		f.names[g] = perfGroup(g)
		f.state[g] = make([]simMember, members)
		for m := range f.state[g] {
			f.state[g][m].id = perfMember(g, m)
		}
	}
	return f
}

func perfGroup(g int) string     { return fmt.Sprintf("g%05d", g) }
func perfMember(g, m int) string { return fmt.Sprintf("10.%d.%d.%d-m0", g/250, g%250, m) }

// round sends one heartbeat for every member (a join for those at epoch 0), reporting as owned
// what the last response assigned (a revoked shard is released at once), with workers groups
// at a time.
func (f *perfFleet) round(workers int) {
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				g := int(next.Add(1) - 1)
				if g >= f.groups {
					return
				}
				for m := range f.state[g] {
					f.beat(g, m)
				}
			}
		}()
	}
	wg.Wait()
}

func (f *perfFleet) beat(g, m int) {
	s := &f.state[g][m]
	id := s.id
	req := protocol.HeartbeatRequest{
		ProtocolVersion: 1, RequestID: "r", MemberID: id, MemberName: "orders-worker", MemberEpoch: s.epoch,
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4},
		OwnedShards:             s.owned,
	}
	if f.progress {
		for _, sh := range s.owned {
			now := time.Now()
			req.ShardProgress = append(req.ShardProgress, protocol.ShardProgress{Shard: sh,
				StreamKey:       fmt.Sprintf("orders:%d", sh.ShardIndex),
				LastDeliveredID: fmt.Sprintf("%d-0", now.UnixMilli()), LastAckedID: fmt.Sprintf("%d-0", now.UnixMilli()),
				UpdatedAt: now.UTC().Format(time.RFC3339Nano)})
		}
	}
	r, err := f.h.Service().Heartbeat(context.Background(), "orders", f.names[g], id, req)
	if err != nil {
		f.bad.Add(1)
		return
	}
	switch r.Status {
	case protocol.StatusOK:
		s.epoch = r.MemberEpoch
		s.owned = append(s.owned[:0], r.Assignment.AssignedShards...)
	case protocol.StatusUnknownMemberID, protocol.StatusFencedMemberEpoch:
		s.epoch, s.owned = 0, s.owned[:0]
		f.bad.Add(1)
	default:
		f.bad.Add(1)
	}
}

// memSample is the process's memory after a full GC: heap in use, RSS as the runtime left it
// (rssGC: freed pages not yet returned to the OS count), and RSS once freed pages are returned.
type memSample struct{ heapInuse, heapAlloc, rssGC, rss uint64 }

func sampleMem(t *testing.T) memSample {
	t.Helper()
	runtime.GC()
	var s memSample
	s.rssGC = rssBytes(t)
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.heapInuse, s.heapAlloc, s.rss = ms.HeapInuse, ms.HeapAlloc, rssBytes(t)
	return s
}

func rssBytes(t *testing.T) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			require.NoError(t, err)
			return kb * 1024
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

func perfHost(t testing.TB, srv *redistest.Server, rules model.Config, shards int) *Host {
	t.Helper()
	store, err := redisstore.New(srv.Client(), redisstore.Options{})
	require.NoError(t, err)
	_, err = store.CreateStream(context.Background(), persistence.StreamRecord{StreamPrefix: "orders", ShardCount: shards, MetadataVersion: 1})
	require.NoError(t, err)
	require.NoError(t, redisstore.NewProvisioner(srv.Client()).EnsureStreams(context.Background(), "orders", 0, shards))
	h, _ := redisHost(t, srv, Options{Rules: rules, TrustEmptyStore: true, RequestTimeout: 10 * time.Second,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return h
}

// TestMemoryPerMemberBenchmark: the node's memory per member once members of many groups have
// joined and settled (every member ACTIVE, every shard assigned), against the same process
// before they joined (host started, stream created). RSS and heap in use after a full GC.
//
//	RSC_BENCH_MEM=1 [RSC_BENCH_MEM_GROUPS=1000 RSC_BENCH_MEM_MEMBERS=100] [RSC_BENCH_MEM_PROGRESS=1] [RSC_BENCH_MEM_PROFILE=heap.pprof] \
//	  go test -count=1 -run TestMemoryPerMemberBenchmark -v ./actors/host/
func TestMemoryPerMemberBenchmark(t *testing.T) {
	if os.Getenv("RSC_BENCH_MEM") == "" {
		t.Skip("set RSC_BENCH_MEM=1 to run")
	}
	groups := envInt(t, "RSC_BENCH_MEM_GROUPS", 200)
	members := envInt(t, "RSC_BENCH_MEM_MEMBERS", 100)
	shards := envInt(t, "RSC_BENCH_MEM_SHARDS", 64)
	rounds := envInt(t, "RSC_BENCH_MEM_ROUNDS", 4)
	if os.Getenv("RSC_BENCH_MEM_PROFILE") != "" {
		runtime.MemProfileRate = 1024 // fine-grained enough to attribute small per-member records
	}
	srv := redistest.Start(t)
	rules := defaultRules
	rules.LeaseTTL = 10 * time.Minute // nobody expires while the fleet is being built
	h := perfHost(t, srv, rules, shards)
	f := newPerfFleet(h, groups, members)
	f.progress = os.Getenv("RSC_BENCH_MEM_PROGRESS") != ""
	before := sampleMem(t)
	start := time.Now()
	for r := 0; r < rounds; r++ {
		f.round(2 * runtime.GOMAXPROCS(0))
	}
	took := time.Since(start)
	after := sampleMem(t)
	n := float64(groups * members)
	t.Logf("%d groups × %d members (%d shards each, shardProgress %v), %d heartbeat rounds in %s (%d non-OK answers)",
		groups, members, shards, f.progress, rounds, took.Round(time.Millisecond), f.bad.Load())
	t.Logf("before: heap in use %.1f MiB, RSS %.1f MiB; after: heap in use %.1f MiB, RSS %.1f MiB",
		mib(before.heapInuse), mib(before.rss), mib(after.heapInuse), mib(after.rss))
	per := func(a, b uint64) float64 { return (float64(a) - float64(b)) / n / 1024 }
	t.Logf("per member: heap in use %.2f KiB (live objects %.2f KiB), RSS %.2f KiB (freed pages returned), RSS %.2f KiB (after GC only); goroutines %d",
		per(after.heapInuse, before.heapInuse), per(after.heapAlloc, before.heapAlloc), per(after.rss, before.rss), per(after.rssGC, before.rssGC), runtime.NumGoroutine())
	if p := os.Getenv("RSC_BENCH_MEM_PROFILE"); p != "" {
		out, err := os.Create(p)
		require.NoError(t, err)
		require.NoError(t, pprof.WriteHeapProfile(out))
		require.NoError(t, out.Close())
	}
	res := benchresult.Memory{Kind: "memory", Groups: groups, Members: groups * members, Shards: shards, NonOK: f.bad.Load(),
		BeforeRSSMiB: mib(before.rss), BeforeHeapMiB: mib(before.heapInuse),
		HeapInuseKiB: per(after.heapInuse, before.heapInuse), LiveKiB: per(after.heapAlloc, before.heapAlloc),
		RSSReturnedKiB: per(after.rss, before.rss), RSSAfterGCKiB: per(after.rssGC, before.rssGC),
		MemoryLimit: memLimitString(), RoundsSeconds: took.Seconds()}
	if steady := envInt(t, "RSC_BENCH_MEM_STEADY", 8); steady > 0 {
		st := steadyRSS(t, f, steady, envInt(t, "RSC_BENCH_MEM_STEADY_GCS", 2))
		res.SteadyRounds, res.SteadyRSSMean, res.SteadyRSSMax = st.rounds, per(st.rssMean, before.rss), per(st.rssMax, before.rss)
		res.SteadyHeapMean, res.GCCPUPercent = per(st.heapMean, before.heapInuse), 100*st.gcCPU
		res.HeartbeatsPerS = float64(st.rounds) * n / st.took.Seconds()
		t.Logf("steady state (%d more heartbeat rounds, no forced GC, %d GC cycles, %.0f heartbeats/s): RSS per member mean %.2f KiB, max %.2f KiB, last %.2f KiB; heap in use per member mean %.2f KiB, max %.2f KiB; heap goal per member %.2f KiB; GC %.1f%% of CPU; memory limit %s, GOGC %s",
			st.rounds, st.gcs, float64(st.rounds)*n/st.took.Seconds(), per(st.rssMean, before.rss), per(st.rssMax, before.rss), per(st.rssLast, before.rss),
			per(st.heapMean, before.heapInuse), per(st.heapMax, before.heapInuse), per(st.goal, before.heapInuse), 100*st.gcCPU, memLimitString(), cmp.Or(os.Getenv("GOGC"), "100"))
	}
	require.Len(t, h.router.ActiveKeys(), groups)
	writeBenchResult(t, res)
	runtime.KeepAlive(f)
}

// steadyState is the process's memory as an operator sees it while heartbeats flow: RSS and
// heap in use sampled after every round (no forced GC, no pages returned by hand).
type steadyState struct {
	rssMean, rssMax, rssLast, heapMean, heapMax uint64
	goal                                        uint64 // the collector's heap goal after the last round
	rounds                                      int
	gcs                                         uint32
	took                                        time.Duration
	gcCPU                                       float64 // share of the process's CPU time spent in GC
}

// steadyRSS runs at least rounds rounds, and more until the collector has run gcs times (at
// most 20× rounds): a heartbeat leaves little garbage, and a window that ends before the heap
// first grows to its goal would show less memory than a node settles at.
func steadyRSS(t *testing.T, f *perfFleet, rounds, gcs int) steadyState {
	t.Helper()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gc0 := ms.NumGC
	var st steadyState
	var rssSum, heapSum uint64
	cpu0 := cpuClasses()
	start := time.Now()
	for r := 0; r < rounds || (int(ms.NumGC-gc0) < gcs && r < 20*rounds); r++ {
		f.round(2 * runtime.GOMAXPROCS(0))
		st.rounds++
		rss := rssBytes(t)
		runtime.ReadMemStats(&ms)
		rssSum += rss
		heapSum += ms.HeapInuse
		st.rssMax = max(st.rssMax, rss)
		st.heapMax = max(st.heapMax, ms.HeapInuse)
		st.rssLast = rss
	}
	st.took = time.Since(start)
	cpu1 := cpuClasses()
	if total := cpu1[1] - cpu0[1]; total > 0 {
		st.gcCPU = (cpu1[0] - cpu0[0]) / total
	}
	st.rssMean, st.heapMean = rssSum/uint64(st.rounds), heapSum/uint64(st.rounds)
	st.gcs = ms.NumGC - gc0
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(goal)
	st.goal = goal[0].Value.Uint64()
	return st
}

// cpuClasses returns the process's GC CPU seconds and total CPU seconds (runtime/metrics
// estimates).
func cpuClasses() [2]float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(s)
	return [2]float64{s[0].Value.Float64(), s[1].Value.Float64()}
}

// memLimitString is the runtime's soft memory limit as set (GOMEMLIMIT or debug.SetMemoryLimit).
func memLimitString() string {
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		return fmt.Sprintf("%.0f MiB", mib(uint64(l)))
	}
	return "off"
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// writeBenchResult appends v as one JSON line to the file RSC_BENCH_RESULT names, if it is set:
// the whole-system suite (test/sysbench, make bench) runs these tests and reads their figures
// from it.
func writeBenchResult(t *testing.T, v any) {
	t.Helper()
	path := os.Getenv("RSC_BENCH_RESULT")
	if path == "" {
		return
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	out, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	_, err = out.Write(append(b, '\n'))
	require.NoError(t, err)
	require.NoError(t, out.Close())
}

// BenchmarkHostHeartbeatSteady: time and allocations of one steady heartbeat (nothing changes
// but the lease) through the in-process host — the actor hop, evaluation, apply and response —
// for a member of a settled group of 100 members × 64 shards. Memory between collections grows
// with the garbage each heartbeat leaves, so its allocations are watched here.
//
//	go test -run XXX -bench BenchmarkHostHeartbeatSteady -benchmem ./actors/host/
func BenchmarkHostHeartbeatSteady(b *testing.B) {
	srv := redistest.Start(b)
	rules := defaultRules
	rules.LeaseTTL = 10 * time.Minute
	h := perfHost(b, srv, rules, 64)
	f := newPerfFleet(h, 1, 100)
	for r := 0; r < 4; r++ {
		f.round(1)
	}
	require.Zero(b, f.bad.Load())
	s := f.state[0][50]
	id, group := perfMember(0, 50), perfGroup(0)
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "r", MemberID: id, MemberName: "orders-worker",
		MemberEpoch: s.epoch, OwnedShards: s.owned,
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := h.Service().Heartbeat(ctx, "orders", group, id, req)
		if err != nil || r.Status != protocol.StatusOK || r.MemberEpoch != s.epoch {
			b.Fatalf("not steady: %v %+v", err, r)
		}
	}
}
