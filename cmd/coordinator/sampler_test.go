package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

type fakeHosts struct {
	groups []router.HostedGroup
	failed []persistence.GroupKey
}

func (f *fakeHosts) HostedGroups(time.Duration) ([]router.HostedGroup, []persistence.GroupKey) {
	return f.groups, f.failed
}

// fakeRedis answers StreamGroups from per-stream replies; a stream in block
// waits for the round's deadline.
type fakeRedis struct {
	mu       sync.Mutex
	calls    []string
	reply    map[string][]map[string]redisstore.GroupSample
	block    map[string]bool
	runIDs   string          // PrimaryRunIDs' answer
	recounts []string        // the streams RecountLag was asked about
	failOnce map[string]bool // RecountLag fails once for these streams
}

func (f *fakeRedis) PrimaryRunIDs(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runIDs, nil
}

func (f *fakeRedis) RecountLag(_ context.Context, stream string, _ int) (redisstore.LagRecount, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recounts = append(f.recounts, stream)
	if f.failOnce[stream] {
		delete(f.failOnce, stream)
		return redisstore.LagRecount{}, errors.New("redis: connection refused")
	}
	return redisstore.LagRecount{Recounted: 1}, nil
}

func (f *fakeRedis) recounted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.recounts
	f.recounts = nil
	return out
}

func (f *fakeRedis) StreamGroups(ctx context.Context, stream string, shards int) ([]map[string]redisstore.GroupSample, error) {
	f.mu.Lock()
	f.calls = append(f.calls, stream)
	block := f.block[stream]
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return f.reply[stream][:shards], nil
}

func (f *fakeRedis) took() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.calls
	f.calls = nil
	return out
}

func gauges(t *testing.T, m *metrics.Metrics) map[string]map[string]float64 {
	t.Helper()
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	out := map[string]map[string]float64{}
	for _, f := range families {
		for _, mt := range f.GetMetric() {
			key := ""
			for _, name := range []string{"stream_prefix", "consumer_group"} {
				for _, l := range mt.GetLabel() {
					if l.GetName() == name {
						key += l.GetValue() + "/"
					}
				}
			}
			if out[f.GetName()] == nil {
				out[f.GetName()] = map[string]float64{}
			}
			if mt.GetGauge() != nil {
				out[f.GetName()][key] = mt.GetGauge().GetValue()
			} else if mt.GetCounter() != nil {
				out[f.GetName()][key] = mt.GetCounter().GetValue()
			}
		}
	}
	return out
}

func gk(stream, group string) persistence.GroupKey {
	return persistence.GroupKey{StreamPrefix: stream, ConsumerGroup: group}
}

func newTestSampler(h *fakeHosts, r *fakeRedis, interval time.Duration) (*groupSampler, *metrics.Metrics) {
	m := metrics.New()
	return &groupSampler{hosts: h, redis: r, m: m, log: slog.New(slog.NewTextHandler(io.Discard, nil)), interval: interval}, m
}

// One read per stream serves every hosted group of it; a node that hosts
// nothing makes no Redis call and drops the series it exported.
func TestSamplerOneReadPerStreamNoneWhenIdle(t *testing.T) {
	two := []map[string]redisstore.GroupSample{
		{"a": {Pending: 1, Lag: 2}, "b": {Pending: 0, Lag: 5}, "other": {Pending: 9, Lag: 9}},
		{"a": {Pending: 3, Lag: 4}, "b": {Pending: 1, Lag: -1}},
	}
	h := &fakeHosts{groups: []router.HostedGroup{
		{Key: gk("s", "a"), ShardCount: 2, Unowned: 1},
		{Key: gk("s", "b"), ShardCount: 2},
		{Key: gk("t", "c"), ShardCount: 1},
	}}
	r := &fakeRedis{reply: map[string][]map[string]redisstore.GroupSample{"s": two, "t": {{}}}}
	s, m := newTestSampler(h, r, time.Second)
	require.False(t, s.sample(context.Background()))
	require.Equal(t, []string{"s", "t"}, r.took(), "one read per stream")
	g := gauges(t, m)
	require.Equal(t, map[string]float64{"s/a/": 6}, g["rsc_group_lag"], "b's lag is unknown and c is not on its shard: left unset")
	require.Equal(t, map[string]float64{"s/a/": 4, "s/b/": 1, "t/c/": 0}, g["rsc_group_pending"])
	require.Equal(t, map[string]float64{"s/a/": 1, "s/b/": 0, "t/c/": 0}, g["rsc_group_unowned_shards"])
	require.Equal(t, map[string]float64{"s/a/": 2, "s/b/": 2, "t/c/": 1}, g["rsc_group_shards"])

	// b moved away (or passivated), a is busy: b is dropped, a keeps its values.
	h.groups, h.failed = h.groups[2:], []persistence.GroupKey{gk("s", "a")}
	require.False(t, s.sample(context.Background()))
	require.Equal(t, []string{"t"}, r.took())
	g = gauges(t, m)
	require.Equal(t, map[string]float64{"s/a/": 4, "t/c/": 0}, g["rsc_group_pending"])
	require.Equal(t, float64(1), g["rsc_group_sample_errors_total"][""])

	h.groups, h.failed = nil, nil
	require.False(t, s.sample(context.Background()))
	require.Empty(t, r.took(), "an idle node asks Redis nothing")
	require.Empty(t, gauges(t, m)["rsc_group_pending"])
}

// A round that cannot finish within its interval is cut and counted; the
// next round starts at the stream it did not read.
func TestSamplerCutRoundResumes(t *testing.T) {
	one := []map[string]redisstore.GroupSample{{"g": {Pending: 1, Lag: 1}}}
	h := &fakeHosts{groups: []router.HostedGroup{
		{Key: gk("a", "g"), ShardCount: 1}, {Key: gk("b", "g"), ShardCount: 1}, {Key: gk("c", "g"), ShardCount: 1},
	}}
	r := &fakeRedis{reply: map[string][]map[string]redisstore.GroupSample{"a": one, "b": one, "c": one}, block: map[string]bool{"b": true}}
	s, m := newTestSampler(h, r, 50*time.Millisecond)
	require.True(t, s.sample(context.Background()))
	require.Equal(t, []string{"a", "b"}, r.took())
	g := gauges(t, m)
	require.Equal(t, float64(1), g["rsc_metrics_sample_rounds_cut_total"][""])
	require.GreaterOrEqual(t, g["rsc_metrics_sample_round_seconds"][""], 0.05)
	require.Equal(t, map[string]float64{"a/g/": 1}, g["rsc_group_pending"])

	r.mu.Lock()
	r.block = nil
	r.mu.Unlock()
	require.False(t, s.sample(context.Background()))
	require.Equal(t, []string{"b", "c", "a"}, r.took(), "the cut round's rest first")
	require.Len(t, gauges(t, m)["rsc_group_pending"], 3)
}

// When the Redis primaries change between two rounds, each stream sampled
// here has its lag counters recounted once (again next round if that
// failed); not on the first round, and not while they stay the same.
func TestSamplerRecountsLagAfterThePrimaryChanged(t *testing.T) {
	one := []map[string]redisstore.GroupSample{{"a": {Lag: 1}}}
	h := &fakeHosts{groups: []router.HostedGroup{{Key: gk("s1", "a"), ShardCount: 1}, {Key: gk("s2", "a"), ShardCount: 1}}}
	r := &fakeRedis{reply: map[string][]map[string]redisstore.GroupSample{"s1": one, "s2": one}, runIDs: "run-1"}
	s, _ := newTestSampler(h, r, time.Minute)
	ctx := context.Background()

	s.sample(ctx)
	s.sample(ctx)
	require.Empty(t, r.recounted(), "the first round and an unchanged primary recount nothing")

	r.mu.Lock()
	r.runIDs, r.failOnce = "run-2", map[string]bool{"s2": true}
	r.mu.Unlock()
	s.sample(ctx)
	require.Equal(t, []string{"s1", "s2"}, r.recounted(), "every sampled stream, once")
	s.sample(ctx)
	require.Equal(t, []string{"s2"}, r.recounted(), "the failed one again")
	s.sample(ctx)
	require.Empty(t, r.recounted())
}
