package chaos

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/test/recorder"
)

// checkPauses checks every SIGSTOP/SIGCONT fault: a paused member that held
// shards must report SELF_FENCED (or FENCED) once it runs again, and must
// not acknowledge, at its pre-pause epoch, an entry of a shard that another
// member acknowledged on after the pause began.
func checkPauses(rep *Report, ran []injected, lines []recorder.Line, lease time.Duration) {
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].At < lines[j].At })
	for _, f := range ran {
		if f.Kind != FaultMemberPause {
			continue
		}
		rep.Pauses++
		m, p0, p1 := f.Target, f.Start.UnixNano(), f.End.UnixNano()
		// Shards the member's current process had started and not released
		// when it was stopped (a kill -9 ends a process without releases).
		var kills []int64
		for _, g := range ran {
			if g.Kind == FaultMemberKill && g.Target == m && g.Start.UnixNano() < p0 {
				kills = append(kills, g.Start.UnixNano())
			}
		}
		sort.Slice(kills, func(i, j int) bool { return kills[i] < kills[j] })
		live := map[int]bool{}
		var epoch int64
		for _, l := range lines {
			if l.At >= p0 {
				break
			}
			for len(kills) > 0 && kills[0] <= l.At {
				live, kills = map[int]bool{}, kills[1:]
			}
			if l.Member != m || l.Kind != "event" {
				continue
			}
			switch l.Event {
			case "SHARD_STARTED":
				live[l.Shard] = true
			case "SHARD_RELEASED":
				delete(live, l.Shard)
			case "SELF_FENCED", "FENCED":
				live = map[int]bool{} // every worker stopped at once (releases follow)
			}
		}
		for _, l := range lines { // the member's epoch when it was paused
			if l.At < p0 && l.Member == m && l.Epoch > 0 {
				epoch = l.Epoch
			}
		}
		if len(kills) > 0 {
			live = map[int]bool{} // killed after its last record
		}
		if len(live) == 0 {
			continue
		}
		rep.PausesHoldingShards++
		fenced := false
		for _, l := range lines {
			if l.Member == m && l.Kind == "event" && (l.Event == "SELF_FENCED" || l.Event == "FENCED") &&
				l.At >= p0 && l.At <= p1+int64(2*lease) {
				fenced = true
				break
			}
		}
		if fenced {
			rep.PausesSelfFenced++
		} else {
			rep.PausesWithoutFence = append(rep.PausesWithoutFence, fmt.Sprintf("%s paused %s–%s holding %v",
				m, f.Start.UTC().Format("15:04:05.000"), f.End.UTC().Format("15:04:05.000"), keys(live)))
		}
		// Shards another member acknowledged on since the pause began.
		takenAt := map[int]int64{}
		for _, l := range lines {
			if l.Kind == "acked" && l.Member != m && l.At >= p0 && live[l.Shard] {
				if _, ok := takenAt[l.Shard]; !ok {
					takenAt[l.Shard] = l.At
				}
			}
		}
		for _, l := range lines {
			if l.Kind == "acked" && l.Member == m && l.At >= p1 && l.Epoch == epoch {
				if at, ok := takenAt[l.Shard]; ok && at < l.At {
					rep.AckedAfterReassignment = append(rep.AckedAfterReassignment, fmt.Sprintf(
						"%s acked shard %d entry %s at epoch %d at %s after resuming; another member acked on it from %s",
						m, l.Shard, l.EntryID, l.Epoch, time.Unix(0, l.At).UTC().Format("15:04:05.000"),
						time.Unix(0, at).UTC().Format("15:04:05.000")))
				}
			}
		}
	}
}

// ackGaps finds the longest time between two acknowledgements on one shard
// while the producer ran.
func ackGaps(rep *Report, lines []recorder.Line, shards int, from, to time.Time) {
	last := map[int]int64{}
	for s := 0; s < shards; s++ {
		last[s] = from.UnixNano()
	}
	rep.LongestAckGapShard = -1
	note := func(s int, at int64) {
		if d := at - last[s]; d > rep.LongestAckGapMs*int64(time.Millisecond) {
			rep.LongestAckGapMs = d / int64(time.Millisecond)
			rep.LongestAckGapShard = s
			rep.LongestAckGapFrom = time.Unix(0, last[s]).UTC().Format("15:04:05.000")
		}
		last[s] = at
	}
	for _, l := range lines { // sorted by time (recorder.WithoutLateConfirmations)
		if _, tracked := last[l.Shard]; !tracked {
			continue // a shard that does not live through the run (resharding)
		}
		if l.Kind == "acked" && l.At > from.UnixNano() && l.At <= to.UnixNano() {
			note(l.Shard, l.At)
		}
	}
	for s := 0; s < shards; s++ {
		note(s, to.UnixNano())
	}
}

// classifyGaps finds the longest unowned gap clear of Redis and coordinator
// faults.
func classifyGaps(rep *Report, gaps []gap, ran []injected, lease time.Duration) {
	rep.LongestUnownedNoInfraShard = -1
	for _, g := range gaps {
		end := g.From.Add(g.Len)
		clear := true
		for _, f := range ran {
			if !infraFault(f.Kind) {
				continue
			}
			if g.From.Before(f.Recovered.Add(lease)) && f.Start.Before(end) {
				clear = false
				break
			}
		}
		if clear && g.Len.Milliseconds() > rep.LongestUnownedNoInfraMs {
			rep.LongestUnownedNoInfraMs = g.Len.Milliseconds()
			rep.LongestUnownedNoInfraShard = g.Shard
			rep.LongestUnownedNoInfraFrom = g.From.UTC().Format("15:04:05.000")
		}
	}
}

// checkRecords checks the recorded lines (labelled per shard incarnation)
// against what was produced and against the final fences of the live
// shards in Redis (recorder.ReadFences).
func checkRecords(ctx context.Context, t *testing.T, c *cluster, lines []recorder.Line, produced int64) recorder.Report {
	rec := recorder.FromLines(lines)
	if err := rec.ReadFences(ctx, c.rdb, c.cfg.Prefix, c.cfg.Group, c.shards); err != nil {
		t.Errorf("read the final fences: %v", err)
	}
	return rec.Check(produced)
}

// fenceFailures are the failures of the fence-history check: any window, or
// no fenced acknowledgement at all although members acknowledged (the
// coordinator always fences, so the check would have measured nothing).
func fenceFailures(rr recorder.Report, lines []recorder.Line) []string {
	var out []string
	acks := 0
	for _, l := range lines {
		if l.Kind == "acked" {
			acks++
		}
	}
	if len(rr.FenceOverlaps) > 0 {
		out = append(out, fmt.Sprintf("%d double-processing windows in the fence history: %v", len(rr.FenceOverlaps), head(rr.FenceOverlaps, 10)))
	}
	if rr.FencedAcks == 0 && acks > 0 {
		out = append(out, "no acknowledgement carried a fencing token although members acknowledged: the fence-history check measured nothing")
	}
	return out
}

// everyHandledOrAcked reports whether every produced sequence number was
// acknowledged, or at least handled, according to the members' records.
func everyHandledOrAcked(rec *recorder.Recorder, produced int64) bool {
	acked := rec.AckedSeqs()
	if int64(len(acked)) >= produced {
		return true
	}
	handled := map[int64]bool{}
	for _, l := range rec.Lines() {
		if l.Kind == "handled" {
			handled[l.Seq] = true
		}
	}
	for seq := int64(1); seq <= produced; seq++ {
		if !acked[seq] && !handled[seq] {
			return false
		}
	}
	return true
}

// classifyLoss decides, for every produced entry without an ACKED record,
// whether it was lost. The recorder only sees an acknowledgement once the
// member has read XACK's reply; a member killed (or Redis stopped) right
// after the XACK reached Redis leaves the entry acknowledged in Redis with
// no record, and so does a member paused (SIGSTOP) with its XACK in flight:
// Redis applies it, and the reply is read after the pause, once the ack's
// deadline has passed, as a failure. Such an entry is not lost if its
// handler ran, Redis shows it is not pending, and a kill or pause of that
// member or a Redis stop began within faultAfter of the handler (or up to
// faultSkew before it: a fault is timed when the runner sends the signal,
// and the member may finish its handler while the signal is delivered).
// Everything else without an ACKED record is lost.
//
// faultAfter: how long after its handler an entry's XACK may still be in
// flight. The SDK acknowledges a batch once its handlers are done, and under
// -race with other test processes on two cores that has taken more than 2 s
// (a paused member's XACK, sent 2–3 s after the entry's handler, applied by
// Redis, its reply read as a timeout after the pause).
const faultAfter = 5 * time.Second

// faultSkew: how long before a fault's recorded start its member may still
// finish a handler (the signal is sent after the fault is timed).
const faultSkew = 250 * time.Millisecond

func classifyLoss(ctx context.Context, c *cluster, rep *Report, lines []recorder.Line, ran []injected, produced int64) {
	acked := c.rec.AckedSeqs()
	handled := map[int64][]recorder.Line{}
	for _, l := range lines {
		if l.Kind == "handled" {
			handled[l.Seq] = append(handled[l.Seq], l)
		}
	}
	rdb := c.rdb
	rep.Lost, rep.LostSeqs, rep.Processed = 0, nil, 0
	for seq := int64(1); seq <= produced; seq++ {
		if acked[seq] {
			rep.Processed++
			continue
		}
		excuse := ""
		for _, h := range handled[seq] {
			rows, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: c.streamOf(h.Shard),
				Group: c.cfg.Group, Start: h.EntryID, End: h.EntryID, Count: 1}).Result()
			if err != nil || len(rows) > 0 {
				continue
			}
			for _, f := range ran {
				after := f.Start.Sub(time.Unix(0, h.At))
				if after < -faultSkew || after > faultAfter {
					continue
				}
				if redisFault(f.Kind) || ((f.Kind == FaultMemberKill || f.Kind == FaultMemberPause) && f.Target == h.Member) {
					excuse = fmt.Sprintf("seq %d: %s handled shard %d entry %s at %s; %s %s at %s; not pending in Redis",
						seq, h.Member, h.Shard, h.EntryID, clock(h.At), f.Kind, f.Target, f.Start.UTC().Format("15:04:05.000"))
					break
				}
			}
			if excuse != "" {
				break
			}
		}
		if excuse != "" {
			rep.Processed++
			rep.AckedUnrecorded++
			if len(rep.AckedUnrecordedEntries) < 50 {
				rep.AckedUnrecordedEntries = append(rep.AckedUnrecordedEntries, excuse)
			}
			continue
		}
		rep.Lost++
		if len(rep.LostSeqs) < 20 {
			rep.LostSeqs = append(rep.LostSeqs, seq)
		}
	}
}
