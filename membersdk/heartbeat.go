package membersdk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/redisstream/coordinator/membersdk/internal/retry"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// hbResult is the outcome of one heartbeat round (all URLs tried if needed).
type hbResult struct {
	req    protocol.HeartbeatRequest
	resp   protocol.HeartbeatResponse
	url    string
	err    error
	sentAt time.Time
}

// buildRequest reports what the member holds right now: every shard with a
// worker is owned; shards being given up are also listed in revokingShards
// (REVOKING until the reader stopped, then DRAINING with the handlers still
// running); omitting a shard releases it.
func (c *Consumer) buildRequest() protocol.HeartbeatRequest {
	req := protocol.HeartbeatRequest{
		ProtocolVersion: protocol.Version,
		RequestID:       uuid.NewString(), // random (version 4) UUID
		MemberID:        c.cfg.MemberID,
		MemberName:      c.cfg.MemberName,
		MemberEpoch:     c.ls.epoch,
		MetadataVersion: c.ls.metadataVersion,
		RuntimeConsumerCapacity: protocol.Capacity{
			RuntimeMaxConcurrency: c.cfg.Concurrency,
			AvailableConcurrency:  max(c.cfg.Concurrency-int(c.running.Load()), 0),
		},
		OwnedShards:    []protocol.ShardID{},
		RevokingShards: []protocol.RevokingShard{},
		IncarnationID:  c.incarnation,
		InstanceID:     c.cfg.InstanceID,
	}
	if c.ls.rejoin {
		// Join owning nothing (canHeartbeat waited for the readers to stop).
		return req
	}
	for _, s := range c.ownedIndexes() {
		w := c.ls.workers[s]
		id := protocol.ShardID{ShardIndex: s}
		req.OwnedShards = append(req.OwnedShards, id)
		if st := w.RevokeState(); st != "" {
			req.RevokingShards = append(req.RevokingShards, protocol.RevokingShard{Shard: id, State: st, InFlight: int(w.InFlight())})
		}
		req.ShardProgress = append(req.ShardProgress, w.Progress())
	}
	return req
}

func (c *Consumer) sendAsync(ctx context.Context, req protocol.HeartbeatRequest, out chan<- hbResult) {
	c.ls.sentAny = true
	if req.MemberEpoch == protocol.EpochJoin {
		c.ls.rejoin = false
	}
	sentAt := c.now()
	round := c.ls.roundBound
	if round == 0 {
		round = c.ls.interval
	}
	go func() {
		out <- c.send(ctx, req, sentAt, round)
	}()
}

// send sends one heartbeat round, bounded to round (the longest heartbeat
// interval the coordinator told; not the short one of a hand-off): a request hanging on a coordinator that went
// silent is abandoned within one interval, and apply starts the next round
// at the latest one interval after this one started. So a member that can
// reach a coordinator node has a heartbeat reach it at least once per
// interval (plus one answer's latency): what a new data set's quiet wait
// relies on (docs/RELIABILITY.md, "A new data set").
func (c *Consumer) send(ctx context.Context, req protocol.HeartbeatRequest, sentAt time.Time, round time.Duration) hbResult {
	resp, url, err := c.hb.Heartbeat(ctx, round, req)
	return hbResult{req: req, resp: resp, url: url, err: err, sentAt: sentAt}
}

// apply acts on a heartbeat outcome and returns when the next heartbeat is
// due. A non-nil error ends Run.
func (c *Consumer) apply(r hbResult) (time.Time, error) {
	now := c.now()
	c.ls.failing = r.err != nil || r.resp.Status == protocol.StatusRetry
	if r.err != nil {
		var ae *AuthError
		if errors.As(r.err, &ae) && ae.Body.ErrorCode == protocol.CodeMemberOwnedByAnotherPrincipal {
			c.idRefused(protocol.StatusMemberIDInUse, ae.Body.Message)
			return now.Add(c.ls.interval), nil
		}
		if errors.As(r.err, &ae) {
			c.log.Error("coordinator refused the credentials; stopping", "error", r.err)
			return now, r.err
		}
		c.log.Warn("heartbeat failed on every coordinator URL", "error", r.err)
		c.emit(Event{Type: EventHeartbeatFailed, Err: r.err, URL: c.hb.Where()})
		// Counted from when the round started: a round that hung until its bound
		// is retried at once, so rounds start at most one interval apart.
		return later(now, r.sentAt.Add(c.retryInterval())), nil
	}
	resp := r.resp
	c.updateTiming(resp)
	switch resp.Status {
	case protocol.StatusOK, protocol.StatusSyncMetadata, protocol.StatusRevokePending:
		fresh := now.Sub(r.sentAt) < c.cfg.selfFenceAfter(c.ls.lease)
		if c.ls.hbRetry != nil {
			c.ls.hbRetry.Reset()
		}
		c.ls.lastOK, c.ls.haveOK = r.sentAt, true
		c.idFree()
		c.gate.Extend(r.sentAt.Add(c.cfg.selfFenceAfter(c.ls.lease)))
		if resp.MemberEpoch > 0 {
			c.ls.epoch = resp.MemberEpoch
			c.epoch.Store(resp.MemberEpoch)
		}
		mv := resp.MetadataVersion
		if mv == 0 {
			mv = resp.Assignment.MetadataVersion
		}
		c.ls.metadataVersion = mv
		c.mv.Store(mv)
		if c.ls.selfFenced && fresh {
			c.ls.selfFenced = false
			c.gate.Fenced.Store(false)
			c.log.Info("heartbeat succeeded again; resuming", "status", resp.Status, "epoch", c.ls.epoch)
			c.emit(Event{Type: EventResumed, Status: resp.Status})
		}
		if resp.Status == protocol.StatusOK && !c.ls.joined {
			c.ls.joined = true
			c.log.Info("joined the group", "epoch", c.ls.epoch, "url", r.url)
			c.emit(Event{Type: EventJoined, URL: r.url, MetadataVersion: mv})
		}
		assigned := protocol.Indexes(resp.Assignment.AssignedShards)
		pending := protocol.Indexes(resp.Assignment.PendingShards)
		slices.Sort(assigned)
		slices.Sort(pending)
		if !slices.Equal(assigned, c.ls.assigned) || !slices.Equal(pending, c.ls.pending) {
			c.ls.assigned, c.ls.pending = assigned, pending
			if len(pending) > 0 && resp.Message != "" {
				// Why the shards wait (another member still releasing them, or grants held).
				c.log.Info("assignment", "status", resp.Status, "epoch", c.ls.epoch, "assigned", assigned, "pending", pending, "pendingReason", resp.Message)
			} else {
				c.log.Info("assignment", "status", resp.Status, "epoch", c.ls.epoch, "assigned", assigned, "pending", pending)
			}
			c.emit(Event{Type: EventAssignment, Shards: assigned, Pending: pending, MetadataVersion: mv})
		}
		// Only OK may start shards; never start pending ones.
		c.reconcile(assigned, resp.Status == protocol.StatusOK && fresh && !c.ls.selfFenced)
		return now.Add(c.nextInterval()), nil
	case protocol.StatusRetry:
		c.emit(Event{Type: EventHeartbeatFailed, Status: resp.Status, URL: r.url})
		return now.Add(c.retryInterval()), nil
	case protocol.StatusUnknownMemberID, protocol.StatusFencedMemberEpoch:
		if r.req.MemberEpoch == protocol.EpochJoin && len(c.ls.workers) == 0 {
			// The join itself was refused (e.g. the stream does not exist
			// yet): nothing to stop; try again later, not in a tight loop.
			c.log.Warn("join refused; retrying", "status", resp.Status, "message", resp.Message)
			c.emit(Event{Type: EventHeartbeatFailed, Status: resp.Status, URL: r.url})
			c.ls.failing = true
			return now.Add(c.retryInterval()), nil
		}
		c.fence(resp.Status, resp.Message)
		return now, nil
	case protocol.StatusMemberIDInUse, protocol.StatusUnreleasedInstanceID:
		c.idRefused(resp.Status, resp.Message)
		return now.Add(c.ls.interval), nil
	case protocol.StatusUnsupportedProtocol, protocol.StatusInvalidRequest:
		c.log.Error("coordinator refused the member; stopping", "status", resp.Status, "message", resp.Message)
		return now, errStopped(resp.Status, resp.Message)
	default:
		c.log.Warn("unknown heartbeat status; retrying", "status", resp.Status)
		c.emit(Event{Type: EventHeartbeatFailed, Status: resp.Status, URL: r.url, Err: fmt.Errorf("unknown status %q", resp.Status)})
		return now.Add(c.retryInterval()), nil
	}
}

func (c *Consumer) updateTiming(resp protocol.HeartbeatResponse) {
	if resp.HeartbeatIntervalMs > 0 {
		c.ls.interval = time.Duration(resp.HeartbeatIntervalMs) * time.Millisecond
		c.ls.roundBound = max(c.ls.roundBound, c.ls.interval)
	}
	if resp.RebalanceTimeoutMs > 0 {
		c.ls.rebalance = time.Duration(resp.RebalanceTimeoutMs) * time.Millisecond
	}
	if resp.MemberLeaseTTLMs > 0 {
		c.ls.lease = time.Duration(resp.MemberLeaseTTLMs) * time.Millisecond
	}
}

// nextInterval is heartbeatIntervalMs, but never so long that one late
// answer would make the member self-fence (a coordinator configured with an
// interval close to the lease TTL).
func (c *Consumer) nextInterval() time.Duration {
	limit := c.cfg.selfFenceAfter(c.ls.lease) / 2
	if c.ls.interval > limit && limit > 0 {
		if !c.ls.warnedInterval {
			c.ls.warnedInterval = true
			c.log.Warn("heartbeat interval is too close to the lease TTL; heartbeating more often", "interval", c.ls.interval, "leaseTtl", c.ls.lease, "using", limit)
		}
		return limit
	}
	return c.ls.interval
}

// retryInterval is the wait before the next heartbeat after a failed round,
// RETRY or a refused join: RetryInterval at first, doubling up to the
// heartbeat interval, each wait jittered so that the members of a group that
// lost their coordinator together do not all come back in the same instant.
// A heartbeat that proves membership resets it.
func (c *Consumer) retryInterval() time.Duration {
	base := min(c.cfg.RetryInterval, c.ls.interval)
	if p := c.ls.hbRetry; p == nil || !p.Paces(base, c.ls.interval) {
		c.ls.hbRetry = retry.New(base, c.ls.interval, 2)
	}
	return c.ls.hbRetry.Next()
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
