package cluster

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
)

// fleet is members heartbeating steadily, each in its own goroutine, member
// i sending to node i mod 3 first. Members behave well: they release a
// revoked shard at their next heartbeat and rejoin when fenced.
type fleet struct {
	w    *world
	ms   []*harness.FailoverMember
	stop chan struct{}
	wg   sync.WaitGroup

	mu       sync.Mutex
	snaps    map[string]snapshot
	noAnswer map[string]int // beats no node answered within beatWithin
	moveTo   map[string]int // URL index a member switches to before its next beat
}

// snapshot is a member's state after its last answered heartbeat.
type snapshot struct {
	Status   protocol.Status
	Epoch    int64
	Owned    []int
	Draining []int
	Pending  []int
	At       time.Time
}

func startFleet(w *world, n int) *fleet {
	f := &fleet{w: w, stop: make(chan struct{}), snaps: map[string]snapshot{}, noAnswer: map[string]int{}, moveTo: map[string]int{}}
	for i := 0; i < n; i++ {
		m := w.member(fmt.Sprintf("m%d", i), i)
		f.ms = append(f.ms, m)
		f.wg.Add(1)
		go f.loop(m)
	}
	w.t.Cleanup(f.Stop)
	return f
}

func (f *fleet) loop(m *harness.FailoverMember) {
	defer f.wg.Done()
	for {
		select {
		case <-f.stop:
			return
		default:
		}
		f.mu.Lock()
		if i, ok := f.moveTo[m.ID]; ok {
			delete(f.moveTo, m.ID)
			m.SwitchTo(i)
		}
		f.mu.Unlock()
		m.Release()
		resp, err := m.Beat(beatWithin)
		f.mu.Lock()
		if err != nil {
			f.noAnswer[m.ID]++
		} else {
			f.snaps[m.ID] = snapshot{Status: resp.Status, Epoch: m.Epoch, Owned: m.Shards(), Draining: keys(m.Draining),
				Pending: protocol.Indexes(resp.Assignment.PendingShards), At: time.Now()}
		}
		f.mu.Unlock()
		select {
		case <-f.stop:
			return
		case <-time.After(heartbeat):
		}
	}
}

// Stop ends every member's loop (members do not leave) and waits for them.
func (f *fleet) Stop() {
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	f.wg.Wait()
}

// Snapshots returns every member's last answered state.
func (f *fleet) Snapshots() map[string]snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]snapshot, len(f.snaps))
	for k, v := range f.snaps {
		out[k] = v
	}
	return out
}

// NoAnswer returns how many beats found no node answering, per member.
func (f *fleet) NoAnswer() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.noAnswer {
		out[k] = v
	}
	return out
}

// MoveTo makes the members selected by which send their next heartbeat to
// node.
func (f *fleet) MoveTo(node int, which func(i int) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, m := range f.ms {
		if which(i) {
			f.moveTo[m.ID] = node
		}
	}
}

// Settled reports whether every member's last answer was OK at a positive
// epoch with nothing pending, nobody drains anything, the members' shards
// are disjoint and cover every shard, and the group is STABLE.
func (f *fleet) Settled() bool {
	snaps := f.Snapshots()
	if len(snaps) < len(f.ms) {
		return false
	}
	owner := map[int]string{}
	for id, s := range snaps {
		if s.Status != protocol.StatusOK || s.Epoch <= 0 || len(s.Draining) > 0 || len(s.Pending) > 0 {
			return false
		}
		for _, sh := range s.Owned {
			if _, dup := owner[sh]; dup {
				return false
			}
			owner[sh] = id
		}
	}
	if len(owner) != f.w.shards {
		return false
	}
	g, ok := f.w.groupView()
	return ok && g.State == protocol.GroupStable
}

// Describe is the members' last states, one per line, for failure messages.
func (f *fleet) Describe() string {
	snaps := f.Snapshots()
	ids := make([]string, 0, len(snaps))
	for id := range snaps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := ""
	for _, id := range ids {
		s := snaps[id]
		out += fmt.Sprintf("%s: %s epoch %d owned %v draining %v pending %v at %s\n", id, s.Status, s.Epoch, s.Owned, s.Draining, s.Pending, clock(s.At))
	}
	return out
}

func keys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Ints(out)
	return out
}

// WaitSettled waits until Settled holds, failing the test with every
// member's last state if it does not within timeout.
func (f *fleet) WaitSettled(t *testing.T, timeout time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !f.Settled() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; members:\n%s", timeout, what, f.Describe())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
