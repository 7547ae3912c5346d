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
//     pending from that one read;
//   - asks the Redis primaries' run ids first, and once they changed
//     (a failover, a restart) recounts the lag counters of each stream
//     before reading it (checkPrimaries).
//
// Its Redis cost is one command per shard of each stream with a hosted
// group, whatever the number of groups, plus one INFO; a node hosting
// nothing makes no Redis call. Passivated groups have no activation and
// are not sampled: their series are dropped (an idle group has no members
// and no reader).
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
	// runIDs identifies the Redis primaries of the last round that asked
	// ("" before the first); recount holds the streams whose lag counters
	// are still to be recounted since the primaries changed.
	runIDs  string
	recount map[string]bool
}

type hostedLister interface {
	HostedGroups(timeout time.Duration) ([]router.HostedGroup, []persistence.GroupKey)
}

type streamGrouper interface {
	StreamGroups(ctx context.Context, streamPrefix string, shards int) ([]map[string]redisstore.GroupSample, error)
	PrimaryRunIDs(ctx context.Context) (string, error)
	RecountLag(ctx context.Context, streamPrefix string, shards int) (redisstore.LagRecount, error)
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
	if len(streams) > 0 {
		s.checkPrimaries(ctx, streams)
	}
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
		if s.recount[stream] {
			s.recountLag(ctx, stream, shards)
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

// checkPrimaries asks which Redis primaries serve the store; when they
// changed since the last round (a failover, or a restart), the lag counters
// of the streams sampled here are recounted (redisstore.RecountLag): a
// promoted replica can hold them behind, and the lag would read too high for
// good. A node started after the change cannot tell and does not recount.
func (s *groupSampler) checkPrimaries(ctx context.Context, streams []string) {
	ids, err := s.redis.PrimaryRunIDs(ctx)
	if err != nil {
		s.log.Debug("asking Redis for its primaries' run ids failed", slog.Any("err", err))
		return
	}
	if s.runIDs != "" && ids != s.runIDs {
		s.log.Warn("the Redis primary changed (a failover or a restart): recounting the lag counters of the consumer groups sampled here, which a promoted replica can hold behind",
			slog.String("was", s.runIDs), slog.String("now", ids), slog.Int("streams", len(streams)))
		s.recount = make(map[string]bool, len(streams))
		for _, stream := range streams {
			s.recount[stream] = true
		}
	}
	s.runIDs = ids
	if len(s.recount) > 0 { // a stream no longer sampled here is another node's to recount
		sampled := make(map[string]bool, len(streams))
		for _, stream := range streams {
			sampled[stream] = true
		}
		for stream := range s.recount {
			if !sampled[stream] {
				delete(s.recount, stream)
			}
		}
	}
}

// recountLag recounts one stream's lag counters; a failure is retried next
// round.
func (s *groupSampler) recountLag(ctx context.Context, stream string, shards int) {
	r, err := s.redis.RecountLag(ctx, stream, shards)
	if err != nil {
		s.log.Debug("recounting a stream's lag counters failed; retrying next round", slog.String("streamPrefix", stream), slog.Any("err", err))
		return
	}
	delete(s.recount, stream)
	if r.Recounted > 0 || r.Left > 0 {
		s.log.Info("recounted the lag counters of a stream after the Redis primary changed", slog.String("streamPrefix", stream),
			slog.Int64("groupShardsCorrected", r.Recounted), slog.Int64("groupShardsTooFarBehindToCount", r.Left))
	}
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
