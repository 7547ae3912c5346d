package chaos

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redisstream/coordinator/test/recorder"
)

// TestPausedMemberStopsAcking is the pause fault of the chaos run made
// likely to bite: handlers take 200 ms and each shard is busy more than
// half the time, so the paused member usually has an entry in flight when it
// is stopped. It is frozen past its lease
// (its shards move to the other member, which claims the pending entries),
// then continued. It must fence itself before anything it was doing can be
// acknowledged: no ACK from it, at its pre-pause epoch, of an entry the new
// owner also handled.
func TestPausedMemberStopsAcking(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos: not in -short")
	}
	cfg := config{Prefix: "orders", Group: "workers", Shards: 2, Members: 2, Coordinators: 1,
		Rate: 8, Work: 200 * time.Millisecond, // one handler at a time per shard (SDK default): 5/s per shard, 80% busy
		Heartbeat: 250 * time.Millisecond, Lease: 2 * time.Second, Rebalance: 4 * time.Second}
	hideChaosEnv(t)
	c := startCluster(t, cfg)
	mon := newMonitor(c.coordinatorURLs(), cfg.Prefix, cfg.Group, cfg.Shards, cfg.Lease)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); mon.run(200*time.Millisecond, stop) }()
	defer func() { close(stop); <-done }()
	waitUntil(t, 30*time.Second, "every shard owned", func() bool { return mon.settled(0) })
	c.startProducer(cfg.Rate)

	var ran []injected
	for round := 0; round < 5; round++ {
		time.Sleep(2 * time.Second)
		victim := fmt.Sprintf("m%d", round%2)
		f := Fault{Kind: FaultMemberPause, Target: victim, For: 2 * cfg.Lease}
		in := injected{Fault: f, Start: time.Now()}
		c.inject(f)
		time.Sleep(f.For)
		in.End = time.Now()
		c.recover(f)
		in.Recovered = time.Now()
		ran = append(ran, in)
		waitUntil(t, 30*time.Second, "every shard owned after the pause", func() bool { return mon.settled(2 * cfg.Heartbeat) })
	}
	time.Sleep(time.Second)
	c.stopProducer()
	produced := c.prod.Produced()
	waitFor(60*time.Second, func() bool { return int64(len(c.rec.AckedSeqs())) >= produced })

	timed, _ := recorder.WithoutLateConfirmations(c.rec.Lines())
	rep := Report{AckedAfterReassignment: []string{}, PausesWithoutFence: []string{}}
	checkPauses(&rep, ran, timed, cfg.Lease)
	stale := staleAcks(ran, timed)
	rr := checkRecords(context.Background(), t, c, timed, produced)
	t.Logf("produced %d, processed %d, lost %d, duplicates %d, overlaps %d, fence overlap windows %d (fenced acks %d); pauses %d (holding shards %d, fenced %d); acks after reassignment %d; entries acked by the paused member after resuming that the new owner also handled: %d",
		rr.Produced, rr.Processed, rr.Lost, rr.Duplicates, len(rr.Overlaps), len(rr.FenceOverlaps), rr.FencedAcks, rep.Pauses, rep.PausesHoldingShards, rep.PausesSelfFenced,
		len(rep.AckedAfterReassignment), len(stale))
	for _, s := range stale {
		t.Errorf("ack after reassignment: %s", s)
	}
	if rr.Lost > 0 {
		t.Errorf("%d entries lost, e.g. %v", rr.Lost, rr.LostSeqs)
	}
	for _, o := range rr.Overlaps {
		t.Errorf("overlap: %s", o)
	}
	for _, f := range fenceFailures(rr, timed) {
		t.Error(f)
	}
	for _, p := range rep.PausesWithoutFence {
		t.Errorf("no fence: %s", p)
	}
}

// staleAcks lists entries the paused member acknowledged after it was
// continued, at the epoch it had before the pause, that another member also
// handled (claimed from it) before that acknowledgement. That pattern cannot
// come from an XACK that reached Redis before the pause (the entry would not
// have been pending for the other member to claim), so it is the proof of an
// acknowledgement sent after the shard was reassigned.
func staleAcks(ran []injected, lines []recorder.Line) []string {
	var out []string
	for _, f := range ran {
		if f.Kind != FaultMemberPause {
			continue
		}
		m, p0, p1 := f.Target, f.Start.UnixNano(), f.End.UnixNano()
		var epoch int64
		for _, l := range lines {
			if l.At < p0 && l.Member == m && l.Epoch > 0 {
				epoch = l.Epoch
			}
		}
		handledBy := map[string]int64{} // "shard/id" → first time another member handled it after p0
		for _, l := range lines {
			if l.Kind == "handled" && l.Member != m && l.At >= p0 {
				k := fmt.Sprintf("%d/%s", l.Shard, l.EntryID)
				if _, ok := handledBy[k]; !ok {
					handledBy[k] = l.At
				}
			}
		}
		for _, l := range lines {
			if l.Kind != "acked" || l.Member != m || l.At < p1 || l.Epoch != epoch {
				continue
			}
			k := fmt.Sprintf("%d/%s", l.Shard, l.EntryID)
			if at, ok := handledBy[k]; ok && at < l.At {
				out = append(out, fmt.Sprintf("%s (paused %s, continued %s) acked shard %d entry %s at epoch %d at %s; another member handled it at %s",
					m, clock(p0), clock(p1), l.Shard, l.EntryID, l.Epoch, clock(l.At), clock(at)))
			}
		}
	}
	return out
}

func clock(ns int64) string { return time.Unix(0, ns).UTC().Format("15:04:05.000") }
