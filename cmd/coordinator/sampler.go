package main

import (
	"context"
	"log/slog"
	"sort"
	"time"

	"github.com/redisstream/coordinator/actors/router"
	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// groupSampler sets the per-group gauges (api/metrics/sampled.go) every
// interval for the groups whose activation runs on this node, so across a
// cluster each active group is sampled once, by its host, and its series
// come from that node only. A round:
//
//   - asks the node's group activations for their shard count and unowned
//     shards (their own state: no store read, no other node);
//   - per stream of those groups, runs one XINFO GROUPS per shard,
//     pipelined, and gives every hosted group of the stream its lag and
//     pending from that one read.
//
// Its Redis cost is one command per shard of each stream with a hosted
// group, whatever the number of groups; a node hosting nothing makes no
// Redis call. Passivated groups have no activation and are not sampled:
// their series are dropped (an idle group has no members and no reader).
// A round is bounded by the interval: a round cut at its deadline is
// counted (rsc_metrics_sample_rounds_cut_total), the streams it did not
// reach keep their previous values and are read first in the next round.
type groupSampler struct {
	hosts    hostedLister
	redis    streamGrouper
	m        *metrics.Metrics
	log      *slog.Logger
	interval time.Duration
	known    map[persistence.GroupKey]bool
	// resume is the first stream a cut round did not read ("" = none).
	resume string
}

type hostedLister interface {
	HostedGroups(timeout time.Duration) ([]router.HostedGroup, []persistence.GroupKey)
}

type streamGrouper interface {
	StreamGroups(ctx context.Context, streamPrefix string, shards int) ([]map[string]redisstore.GroupSample, error)
}

func (s *groupSampler) run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	s.sample(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.sample(ctx)
		}
	}
}

// sample runs one round; it reports whether the round was cut.
func (s *groupSampler) sample(parent context.Context) (cut bool) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(parent, s.interval)
	defer cancel()
	defer func() { s.m.GroupSampleRound(time.Since(start).Seconds(), cut) }()

	hosted, failed := s.hosts.HostedGroups(min(s.interval/2, 5*time.Second))
	seen := make(map[persistence.GroupKey]bool, len(hosted)+len(failed))
	for _, k := range failed { // busy or stopping: keep its last values
		seen[k] = true
		s.m.GroupSampleError()
	}
	byStream := map[string][]router.HostedGroup{}
	for _, g := range hosted {
		seen[g.Key] = true
		metrics.SetRebalancingPaused(s.m, g.Key.StreamPrefix, g.Key.ConsumerGroup, g.PausedSince, start)
		byStream[g.Key.StreamPrefix] = append(byStream[g.Key.StreamPrefix], g)
	}
	for key := range s.known {
		if !seen[key] {
			s.m.ForgetGroupSample(key.StreamPrefix, key.ConsumerGroup)
		}
	}
	s.known = seen

	streams := s.order(byStream)
	s.resume = ""
	for _, stream := range streams {
		if ctx.Err() != nil {
			s.resume, cut = stream, true
			break
		}
		groups := byStream[stream]
		shards := 0
		for _, g := range groups {
			shards = max(shards, g.ShardCount)
		}
		res, err := s.redis.StreamGroups(ctx, stream, shards)
		if err != nil && ctx.Err() != nil {
			s.resume, cut = stream, true
			break
		}
		if err != nil {
			s.log.Debug("sampling a stream's consumer groups failed", slog.String("streamPrefix", stream), slog.Any("err", err))
			for range groups {
				s.m.GroupSampleError()
			}
			continue
		}
		for _, g := range groups {
			lag, pending := sum(res, g)
			s.m.GroupSample(stream, g.Key.ConsumerGroup, metrics.GroupValues{Shards: g.ShardCount, Unowned: g.Unowned, Revoking: g.Revoking, Waiting: g.Waiting, Lag: lag, Pending: pending})
		}
	}
	if cut {
		s.log.Warn("sampling round cut at its deadline: the rest is read first next round; raise metrics.sample-interval if this repeats",
			slog.Duration("interval", s.interval), slog.String("resumeAt", s.resume))
	}
	return cut
}

// order sorts the streams, starting with the one a cut round stopped at, so
// that every stream is read within a few rounds however many are cut.
func (s *groupSampler) order(byStream map[string][]router.HostedGroup) []string {
	streams := make([]string, 0, len(byStream))
	for p := range byStream {
		streams = append(streams, p)
	}
	sort.Strings(streams)
	i := sort.SearchStrings(streams, s.resume)
	return append(append(make([]string, 0, len(streams)), streams[i:]...), streams[:i]...)
}

// sum adds a group's lag and pending over its shards. A shard whose stream
// is missing, that does not list the group, or whose lag Redis cannot tell
// makes the lag unknown (-1).
func sum(res []map[string]redisstore.GroupSample, g router.HostedGroup) (lag, pending int64) {
	for i := 0; i < g.ShardCount; i++ {
		var gs redisstore.GroupSample
		ok := false
		if i < len(res) {
			gs, ok = res[i][g.Key.ConsumerGroup]
		}
		if !ok {
			lag = -1
			continue
		}
		pending += gs.Pending
		if gs.Lag < 0 || lag < 0 {
			lag = -1
		} else {
			lag += gs.Lag
		}
	}
	return lag, pending
}
