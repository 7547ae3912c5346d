package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/api/metrics"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
)

// groupSampler sets the per-group gauges (api/metrics/sampled.go) every
// interval: unowned shards from the group's assignments, lag and pending
// from Redis (XINFO GROUPS on each shard). Each sample costs one
// assignments read per group and two Redis calls per shard; every node
// samples every group, so the series carry the same values on each node
// (aggregate with max, not sum).
type groupSampler struct {
	svc      coordinator.Monitoring
	info     shardInfoer
	m        *metrics.Metrics
	log      *slog.Logger
	interval time.Duration
	known    map[[2]string]bool
}

type shardInfoer interface {
	ShardInfo(ctx context.Context, streamPrefix, group string, shard int) (persistence.ShardInfo, error)
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

func (s *groupSampler) sample(parent context.Context) {
	ctx, cancel := context.WithTimeout(parent, s.interval)
	defer cancel()
	groups, err := s.svc.Groups(ctx)
	if err != nil {
		s.m.GroupSampleError()
		return
	}
	seen := map[[2]string]bool{}
	for _, g := range groups.Groups {
		key := [2]string{g.StreamPrefix, g.ConsumerGroup}
		seen[key] = true
		owned := map[int]bool{}
		if a, err := s.svc.Assignments(ctx, g.StreamPrefix, g.ConsumerGroup); err == nil {
			for _, shards := range a.CurrentAssignments {
				for _, sh := range shards {
					owned[sh.ShardIndex] = true
				}
			}
		} else {
			s.m.GroupSampleError()
			continue
		}
		unowned := 0
		var lag, pending int64
		for i := 0; i < g.ShardCount; i++ {
			if !owned[i] {
				unowned++
			}
			si, err := s.info.ShardInfo(ctx, g.StreamPrefix, g.ConsumerGroup, i)
			if err != nil {
				s.m.GroupSampleError()
				lag = -1
				continue
			}
			pending += si.Pending
			if si.Lag < 0 || lag < 0 {
				lag = -1
			} else {
				lag += si.Lag
			}
		}
		s.m.GroupSample(g.StreamPrefix, g.ConsumerGroup, g.ShardCount, unowned, lag, pending)
	}
	for key := range s.known {
		if !seen[key] {
			s.m.ForgetGroupSample(key[0], key[1])
		}
	}
	s.known = seen
}
