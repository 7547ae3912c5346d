package cluster

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
	"github.com/redisstream/coordinator/test/seqprod"
)

// TestMailboxMembersRollingRestartAndGroupMove is issue 22 point 4: SDK
// member processes heartbeating through the Redis mailbox (no HTTP between
// them and the coordinators) while every node is restarted in turn with
// SIGTERM, then while the node hosting their group is stopped gracefully
// and, once the group has moved, its new host is killed with SIGKILL. No
// member is fenced, nothing produced is lost, and no shard has two readers
// at once (by the members' own shard start/release events, and by who
// acknowledged when). A member may fence itself while its group moves (no
// answer for lease − margin: a hand-over, or the failure detection after a
// kill, took that long on a loaded box, exactly as over HTTP); it must
// resume at its next answer, not be fenced. It logs
// "mailbox-cluster: heartbeats failed=… produced=… lost=…".
func TestMailboxMembersRollingRestartAndGroupMove(t *testing.T) {
	w := startWorldWith(t, 6, map[string]string{"RSC_MAILBOX_ENABLED": "true", "RSC_MAILBOX_BLOCK": "200ms"})
	rec := recorder.New()
	for i := 0; i < 3; i++ {
		harness.StartMember(t, rec, harness.MemberOptions{ID: fmt.Sprintf("mb%d", i), CoordinatorURLs: w.cl.URLs(),
			RedisAddr: w.redis.Addr(), Stream: prefix, Group: groupName, Work: time.Millisecond, Transport: "redis"})
	}
	prod := harness.StartProducer(t, harness.ProducerOptions{CoordinatorURLs: w.cl.URLs(), RedisAddr: w.redis.Addr(),
		Stream: prefix, Group: groupName, Rate: 100})
	settle := func(what string) {
		t.Helper()
		waitUntil(t, 60*time.Second, what, func() bool { return w.allOwned() })
		time.Sleep(lease) // steady heartbeats before the next step
	}
	settle("every shard owned by a mailbox member")

	for i, n := range w.cl.Nodes {
		t.Logf("n%d: SIGTERM and start again at %s", i+1, clock(time.Now()))
		n.RestartGracefully()
		if err := w.cl.WaitFormed(60 * time.Second); err != nil {
			t.Fatalf("after restarting n%d: %v", i+1, err)
		}
		settle(fmt.Sprintf("every shard owned after restarting n%d", i+1))
	}
	for _, kill := range []bool{false, true} {
		host, epoch, err := w.hostingNode()
		if err != nil {
			t.Fatal(err)
		}
		if kill {
			t.Logf("group move: SIGKILL to its host n%d (activation %d) at %s", host+1, epoch, clock(time.Now()))
			w.cl.Nodes[host].Kill()
		} else {
			t.Logf("group move: SIGTERM to its host n%d (activation %d) at %s", host+1, epoch, clock(time.Now()))
			w.cl.Nodes[host].Stop()
		}
		settle(fmt.Sprintf("every shard owned after n%d left", host+1))
		if now, _, err := w.hostingNode(); err != nil || now == host {
			t.Fatalf("the group did not move off n%d: hosted by n%d (%v)", host+1, now+1, err)
		}
		w.cl.Nodes[host].Restart()
		if err := w.cl.WaitFormed(60 * time.Second); err != nil {
			t.Fatalf("after starting n%d again: %v", host+1, err)
		}
		// The returning node's list may place the group on it again: while the group
		// moves back no node lists it active, so wait for the move to end.
		waitUntil(t, 30*time.Second, fmt.Sprintf("a node hosts the group after n%d came back", host+1), func() bool {
			_, _, err := w.hostingNode()
			return err == nil
		})
		settle(fmt.Sprintf("every shard owned after n%d came back", host+1))
	}
	settle("every shard owned at the end")
	checkMailboxRun(t, rec, prod)
}

// allOwned reports whether some node's view of the group's assignments
// has every shard assigned and nothing being revoked.
func (w *world) allOwned() bool {
	for _, n := range w.cl.Nodes {
		if n.Exited() {
			continue
		}
		c := harness.NewClient(n.URL())
		c.HTTP = &http.Client{Timeout: 2 * time.Second}
		var a protocol.AssignmentsResponse
		st, _, err := c.Do("GET", "/coord/v1/monitoring/streams/"+prefix+"/groups/"+groupName+"/assignments", nil, &a)
		if err != nil || st != 200 {
			continue
		}
		owned := 0
		for _, s := range a.CurrentAssignments {
			owned += len(s)
		}
		return owned == w.shards && len(a.RevokeProgress) == 0
	}
	return false
}

// checkMailboxRun stops the producer, waits until every entry is
// acknowledged, and checks what the members recorded.
func checkMailboxRun(t *testing.T, rec *recorder.Recorder, prod *seqprod.Producer) {
	t.Helper()
	produced := prod.Stop()
	if produced == 0 {
		t.Fatal("the producer published nothing")
	}
	deadline := time.Now().Add(45 * time.Second)
	for time.Now().Before(deadline) && int64(len(rec.AckedSeqs())) < produced {
		time.Sleep(200 * time.Millisecond)
	}
	rep := rec.Check(produced)
	events := map[string]int{}
	refused := 0
	fencedItself := map[string]int{} // member → self-fences not followed by RESUMED yet
	for _, l := range rec.Lines() {
		switch l.Kind {
		case "event":
			events[l.Event]++
			switch l.Event {
			case "SELF_FENCED":
				fencedItself[l.Member]++
			case "RESUMED":
				fencedItself[l.Member] = 0
			}
		case "refused":
			refused++
		}
	}
	t.Logf("mailbox-cluster: heartbeats failed=%d produced=%d processed=%d lost=%d duplicates=%d hand-offs=%d overlaps=%d fenced=%d self-fenced=%d resumed=%d acks-refused=%d (left pending, handled again) publish-retries=%d",
		events["HEARTBEAT_FAILED"], rep.Produced, rep.Processed, rep.Lost, rep.Duplicates, rep.HandOffs, len(rep.Overlaps),
		events["FENCED"], events["SELF_FENCED"], events["RESUMED"], refused, prod.Failures())
	if rep.Lost > 0 {
		t.Errorf("%d entries lost (never acknowledged), e.g. seq %v", rep.Lost, rep.LostSeqs)
	}
	for _, o := range rep.Overlaps {
		t.Errorf("two members acknowledged on one shard at once: %s", o)
	}
	for _, o := range rep.FenceOverlaps {
		t.Errorf("fence history: %s", o)
	}
	for _, ev := range []string{"FENCED", "MEMBER_ID_IN_USE", "ACK_FENCED"} {
		if events[ev] > 0 {
			t.Errorf("%d %s event(s): a mailbox member lost its standing", events[ev], ev)
		}
	}
	for m, n := range fencedItself {
		if n > 0 {
			t.Errorf("%s fenced itself and never resumed", m)
		}
	}
	for _, o := range readerOverlaps(rec.Lines()) {
		t.Errorf("two readers of one shard at once: %s", o)
	}
}

// readerOverlaps finds, per shard, two members whose shard workers ran at
// the same time: from a member's SHARD_STARTED to its SHARD_RELEASED (or
// the end of the run).
func readerOverlaps(lines []recorder.Line) []string {
	type span struct {
		member     string
		start, end int64
	}
	open := map[string]int64{} // "member/shard" → start
	spans := map[int][]span{}
	for _, l := range lines {
		if l.Kind != "event" {
			continue
		}
		k := fmt.Sprintf("%s/%d", l.Member, l.Shard)
		switch l.Event {
		case "SHARD_STARTED":
			open[k] = l.At
		case "SHARD_RELEASED":
			if at, ok := open[k]; ok {
				spans[l.Shard] = append(spans[l.Shard], span{l.Member, at, l.At})
				delete(open, k)
			}
		}
	}
	for k, at := range open {
		member, shard, _ := strings.Cut(k, "/")
		var s int
		_, _ = fmt.Sscan(shard, &s)
		spans[s] = append(spans[s], span{member, at, 1<<63 - 1})
	}
	var out []string
	for shard, ss := range spans {
		sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
		for i := 1; i < len(ss); i++ {
			for j := 0; j < i; j++ {
				if ss[j].member != ss[i].member && ss[i].start < ss[j].end {
					out = append(out, fmt.Sprintf("shard %d: %s started at %s while %s still read it (since %s)", shard,
						ss[i].member, clock(time.Unix(0, ss[i].start)), ss[j].member, clock(time.Unix(0, ss[j].start))))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
