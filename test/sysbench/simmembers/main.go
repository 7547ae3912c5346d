// Command simmembers is the member side of the whole-system benchmark
// (test/sysbench): simulated protocol-v1 members in a process of their own,
// so that they do not share the coordinator's process. Each scenario prints
// one JSON object (its result) on stdout.
//
//	load      steady heartbeats from -members members in -groups groups over
//	          -conns keep-alive connections, in interleaved rounds against the
//	          coordinator and a bare fiber baseline (-baseline); the CPU each
//	          process spent per heartbeat is read from /proc/<pid>/stat.
//	handoff   shards moving between live members (a third member joins and
//	          leaves again, -cycles times): release → new owner's response.
//	failover  a member stops heartbeating (crash), -cycles times: its last
//	          heartbeat → every shard it held owned by another member.
//	converge  -members members join one group of -shards shards at once:
//	          seconds and heartbeat rounds until every shard is owned and the
//	          group is STABLE.
//	reshard   -groups groups of -members members each settle on the stream's
//	          -shards shards; the stream is scaled to -to shards and, once that
//	          migration is DEPRECATED, back to -shards: per scale, the time
//	          from the request to every group's target covering the new shard
//	          set, to every shard owned (and none beyond it), and to the
//	          migration's DEPRECATED. The members never read the shards, which
//	          therefore stay empty (a scale-in retires them at once).
//
// Members in handoff, failover and converge behave like the SDK: they
// heartbeat after the heartbeatIntervalMs of their last response, release a
// revoked shard at once and then heartbeat at once.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

var (
	coord    = flag.String("url", "http://127.0.0.1:8080", "coordinator base URL")
	scenario = flag.String("scenario", "load", "load, handoff, failover or converge")
	stream   = flag.String("stream", "bench", "stream prefix (created by the caller)")
	groups   = flag.Int("groups", 10, "groups (load)")
	members  = flag.Int("members", 1000, "members in all (load) or in the group (converge)")
	shards   = flag.Int("shards", 64, "shards of the stream")
	conns    = flag.Int("conns", 64, "keep-alive connections (load)")
	rounds   = flag.Int("rounds", 3, "interleaved rounds per target (load)")
	window   = flag.Duration("window", 5*time.Second, "length of one round (load)")
	baseline = flag.String("baseline", "", "bare fiber baseline base URL (load)")
	coordPID = flag.Int("coord-pid", 0, "coordinator process id (load)")
	basePID  = flag.Int("baseline-pid", 0, "baseline process id (load)")
	cycles   = flag.Int("cycles", 10, "hand-offs or crashes (handoff, failover)")
	timeout  = flag.Duration("timeout", 2*time.Minute, "give up after this long")
	to       = flag.Int("to", 128, "shard count to scale to (reshard)")
)

func main() {
	flag.Parse()
	var out any
	var err error
	switch *scenario {
	case "load":
		out, err = load()
	case "handoff":
		out, err = handoff()
	case "failover":
		out, err = failover()
	case "converge":
		out, err = converge()
	case "reshard":
		out, err = reshard()
	default:
		err = fmt.Errorf("unknown scenario %q", *scenario)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "simmembers:", err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}

func hbPath(group, member string) string {
	return "/coord/v1/streams/" + url.PathEscape(*stream) + "/groups/" + url.PathEscape(group) + "/members/" + url.PathEscape(member) + "/heartbeat"
}

var reqSeq atomic.Int64

// state is what a simulated member knows.
type state struct {
	group, id string
	epoch     int64
	meta      int64
	owned     []int
}

func (s *state) request() []byte {
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "r-" + strconv.FormatInt(reqSeq.Add(1), 10),
		MemberID: s.id, MemberName: "sim", MemberEpoch: s.epoch, MetadataVersion: s.meta,
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4},
		OwnedShards:             protocol.ShardIDs(s.owned), RevokingShards: []protocol.RevokingShard{}}
	b, _ := json.Marshal(req)
	return b
}

// apply follows a response like the SDK; it returns the shards newly granted
// and whether the member released anything (and must heartbeat at once).
func (s *state) apply(r *protocol.HeartbeatResponse) (granted []int, released bool) {
	switch r.Status {
	case protocol.StatusOK, protocol.StatusRevokePending, protocol.StatusSyncMetadata:
		s.epoch, s.meta = r.MemberEpoch, r.MetadataVersion
		assigned := protocol.Indexes(r.Assignment.AssignedShards)
		var keep []int
		for _, sh := range s.owned {
			if slices.Contains(assigned, sh) {
				keep = append(keep, sh)
			} else {
				released = true
			}
		}
		if r.Status == protocol.StatusOK {
			for _, sh := range assigned {
				if !slices.Contains(keep, sh) {
					granted = append(granted, sh)
					keep = append(keep, sh)
				}
			}
		}
		sort.Ints(keep)
		s.owned = keep
	case protocol.StatusFencedMemberEpoch, protocol.StatusUnknownMemberID:
		s.epoch, s.owned = 0, nil
	}
	return granted, released
}

// ---- load ------------------------------------------------------------------

type loadRound struct {
	Target     string  `json:"target"`
	Round      int     `json:"round"`
	Heartbeats int64   `json:"heartbeats"`
	Failed     int64   `json:"failed"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpuSeconds"`
	CPUMicros  float64 `json:"cpuMicrosPerHeartbeat"`
}

type loadResult struct {
	Members, Groups, Shards, Conns int
	Rounds                         []loadRound `json:"rounds"`
	Coordinator                    float64     `json:"coordinatorCpuMicrosPerHeartbeat"`
	Baseline                       float64     `json:"baselineCpuMicrosPerHeartbeat"`
	Ratio                          float64     `json:"ratio"`
}

func load() (any, error) {
	all := make([]*state, 0, *members)
	for i := 0; i < *members; i++ {
		all = append(all, &state{group: fmt.Sprintf("g%02d", i%*groups), id: fmt.Sprintf("m%04d", i)})
	}
	client := func(base string) *fasthttp.HostClient {
		u, _ := url.Parse(base)
		return &fasthttp.HostClient{Addr: u.Host, MaxConns: *conns, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	}
	cc, bc := client(*coord), client(*baseline)
	do := func(c *fasthttp.HostClient, m *state, body []byte) (*protocol.HeartbeatResponse, []byte, error) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.Header.SetMethod("POST")
		req.SetRequestURI("http://" + c.Addr + hbPath(m.group, m.id))
		req.Header.SetContentType("application/json")
		req.SetBody(body)
		if err := c.Do(req, resp); err != nil {
			return nil, nil, err
		}
		if resp.StatusCode() != 200 {
			return nil, nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode(), resp.Body())
		}
		return nil, append([]byte(nil), resp.Body()...), nil
	}
	// Join and settle: sweep every member until all answer OK with nothing pending.
	deadline := time.Now().Add(*timeout)
	for {
		var pending atomic.Int64
		parallel(all, *conns, func(m *state) {
			_, raw, err := do(cc, m, m.request())
			if err != nil {
				pending.Add(1)
				return
			}
			var r protocol.HeartbeatResponse
			if json.Unmarshal(raw, &r) != nil {
				pending.Add(1)
				return
			}
			m.apply(&r)
			if r.Status != protocol.StatusOK || len(r.Assignment.PendingShards) > 0 {
				pending.Add(1)
			}
		})
		if pending.Load() == 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("load: %d members not settled", pending.Load())
		}
	}
	bodies := make([][]byte, len(all))
	res := &loadResult{Members: *members, Groups: *groups, Shards: *shards, Conns: *conns}
	var cpu [2]float64
	var hbs [2]int64
	for round := 0; round < *rounds; round++ {
		for ti, target := range []struct {
			name string
			c    *fasthttp.HostClient
			pid  int
		}{{"coordinator", cc, *coordPID}, {"baseline", bc, *basePID}} {
			for i, m := range all {
				bodies[i] = m.request() // a fresh requestId per round
			}
			var done, failed atomic.Int64
			before, err := cpuSeconds(target.pid)
			if err != nil {
				return nil, err
			}
			start := time.Now()
			stop := start.Add(*window)
			var wg sync.WaitGroup
			for w := 0; w < *conns; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; time.Now().Before(stop); i += *conns {
						k := i % len(all)
						if _, raw, err := do(target.c, all[k], bodies[k]); err != nil || !bytes.Contains(raw, []byte(`"status":"OK"`)) {
							failed.Add(1)
							continue
						}
						done.Add(1)
					}
				}()
			}
			wg.Wait()
			el := time.Since(start).Seconds()
			after, err := cpuSeconds(target.pid)
			if err != nil {
				return nil, err
			}
			r := loadRound{Target: target.name, Round: round, Heartbeats: done.Load(), Failed: failed.Load(), Seconds: el, CPUSeconds: after - before}
			if r.Heartbeats > 0 {
				r.CPUMicros = r.CPUSeconds * 1e6 / float64(r.Heartbeats)
			}
			res.Rounds = append(res.Rounds, r)
			cpu[ti] += r.CPUSeconds
			hbs[ti] += r.Heartbeats
		}
	}
	if hbs[0] > 0 && hbs[1] > 0 {
		res.Coordinator = cpu[0] * 1e6 / float64(hbs[0])
		res.Baseline = cpu[1] * 1e6 / float64(hbs[1])
		res.Ratio = res.Coordinator / res.Baseline
	}
	return res, nil
}

func parallel(all []*state, n int, f func(*state)) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(all) {
					return
				}
				f(all[i])
			}
		}()
	}
	wg.Wait()
}

// cpuSeconds is the user+system CPU time of process pid (Linux /proc).
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces) start after ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / clockTicks, nil
}

// clockTicks is USER_HZ, 100 on every Linux architecture Go runs on.
const clockTicks = 100

// ---- event-driven members (handoff, failover, converge) -------------------

// world runs members that heartbeat on their own schedule and records, per
// shard, when it was released and when a member was granted it.
type world struct {
	http *http.Client
	mu   sync.Mutex
	// released[s] is when shard s was last released (leave, or a heartbeat no
	// longer listing it), zero once a new owner has it.
	released map[int]time.Time
	handoffs []time.Duration
	owner    map[int]string // shard → member that owns it (as the members see it)
	beats    map[string]int
	interval time.Duration // the configured interval (the longest one seen)
	nshards  int           // the shard set settled means: [0, nshards)
}

func newWorld() *world {
	return &world{http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}},
		released: map[int]time.Time{}, owner: map[int]string{}, beats: map[string]int{}, nshards: *shards}
}

func (w *world) send(m *state, body []byte) (*protocol.HeartbeatResponse, error) {
	resp, err := w.http.Post(*coord+hbPath(m.group, m.id), "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r protocol.HeartbeatResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return &r, nil
}

// run heartbeats as member m until ctx ends; lastSend records the send time
// of its last heartbeat.
func (w *world) run(ctx context.Context, m *state, lastSend *atomic.Int64) {
	wait := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		before := slices.Clone(m.owned)
		body := m.request()
		sent := time.Now()
		lastSend.Store(sent.UnixNano())
		r, err := w.send(m, body)
		if err != nil {
			wait = 50 * time.Millisecond
			continue
		}
		got := time.Now()
		granted, released := m.apply(r)
		w.mu.Lock()
		w.beats[m.id]++
		if iv := time.Duration(r.HeartbeatIntervalMs) * time.Millisecond; iv > w.interval {
			w.interval = iv
		}
		for _, s := range before {
			if !slices.Contains(m.owned, s) && w.owner[s] == m.id {
				delete(w.owner, s)
			}
		}
		for _, s := range granted {
			if t, ok := w.released[s]; ok {
				w.handoffs = append(w.handoffs, got.Sub(t))
				delete(w.released, s)
			}
			w.owner[s] = m.id
		}
		w.mu.Unlock()
		wait = time.Duration(r.HeartbeatIntervalMs) * time.Millisecond
		if released {
			// The next heartbeat, sent at once, no longer lists the revoked shards: that is the release.
			w.mu.Lock()
			now := time.Now()
			for _, s := range before {
				if !slices.Contains(m.owned, s) {
					w.released[s] = now
				}
			}
			w.mu.Unlock()
			wait = 0
		}
	}
}

// leave sends m's leave (memberEpoch -1) listing what it owns: every shard is
// released at once.
func (w *world) leave(m *state) error {
	m.epoch = -1
	body := m.request()
	now := time.Now()
	w.mu.Lock()
	for _, s := range m.owned {
		w.released[s] = now
		if w.owner[s] == m.id {
			delete(w.owner, s)
		}
	}
	w.mu.Unlock()
	_, err := w.send(m, body)
	m.epoch, m.owned = 0, nil
	return err
}

// settled reports whether every shard of [0, nshards) is owned by some
// member, and none beyond it.
func (w *world) settled() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.owner) != w.nshards {
		return false
	}
	for s := range w.owner {
		if s >= w.nshards {
			return false
		}
	}
	return true
}

func (w *world) waitSettled(deadline time.Time) error {
	for !w.settled() {
		if time.Now().After(deadline) {
			w.mu.Lock()
			defer w.mu.Unlock()
			return fmt.Errorf("not settled: %d shards owned, want [0, %d)", len(w.owner), w.nshards)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

type member struct {
	st     *state
	cancel context.CancelFunc
	last   atomic.Int64
	done   chan struct{}
}

func (w *world) start(group, id string) *member {
	ctx, cancel := context.WithCancel(context.Background())
	m := &member{st: &state{group: group, id: id}, cancel: cancel, done: make(chan struct{})}
	go func() { defer close(m.done); w.run(ctx, m.st, &m.last) }()
	return m
}

func (m *member) stop() { m.cancel(); <-m.done }

type latencies struct {
	Samples      int     `json:"samples"`
	IntervalMs   int64   `json:"intervalMs"`
	MedianMs     float64 `json:"medianMs"`
	P90Ms        float64 `json:"p90Ms"`
	MaxMs        float64 `json:"maxMs"`
	MedianPerInt float64 `json:"medianPerInterval"`
	P90PerInt    float64 `json:"p90PerInterval"`
	MaxPerInt    float64 `json:"maxPerInterval"`
}

func summarize(d []time.Duration, interval time.Duration) latencies {
	l := latencies{Samples: len(d), IntervalMs: interval.Milliseconds()}
	if len(d) == 0 || interval <= 0 {
		return l
	}
	slices.Sort(d)
	q := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	l.MedianMs, l.P90Ms, l.MaxMs = ms(q(0.5)), ms(q(0.9)), ms(d[len(d)-1])
	l.MedianPerInt = float64(q(0.5)) / float64(interval)
	l.P90PerInt = float64(q(0.9)) / float64(interval)
	l.MaxPerInt = float64(d[len(d)-1]) / float64(interval)
	return l
}

// handoff: two members own the group; a third joins (shards move to it:
// revoke → release → grant) and, once settled, leaves (its shards move back:
// leave → grant), -cycles times. Reported separately.
func handoff() (any, error) {
	w := newWorld()
	deadline := time.Now().Add(*timeout)
	a, b := w.start("g", "a"), w.start("g", "b")
	defer a.stop()
	defer b.stop()
	if err := w.waitSettled(deadline); err != nil {
		return nil, err
	}
	var onJoin, onLeave []time.Duration
	for i := 0; i < *cycles; i++ {
		w.mu.Lock()
		w.handoffs = nil
		w.mu.Unlock()
		c := w.start("g", fmt.Sprintf("c%d", i))
		// Settled with c owning its share: every shard owned, c holding some.
		for {
			w.mu.Lock()
			n, total := 0, len(w.owner)
			for _, o := range w.owner {
				if o == c.st.id {
					n++
				}
			}
			w.mu.Unlock()
			if n >= *shards/3 && total == *shards {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("handoff: cycle %d did not settle", i)
			}
			time.Sleep(5 * time.Millisecond)
		}
		w.mu.Lock()
		onJoin = append(onJoin, w.handoffs...)
		w.handoffs = nil
		w.mu.Unlock()
		// Leave at a random phase of the others' heartbeats.
		w.mu.Lock()
		iv := w.interval
		w.mu.Unlock()
		time.Sleep(time.Duration(rand.Int64N(int64(max(iv, time.Millisecond)))))
		c.stop()
		if err := w.leave(c.st); err != nil {
			return nil, err
		}
		if err := w.waitSettled(deadline); err != nil {
			return nil, err
		}
		w.mu.Lock()
		onLeave = append(onLeave, w.handoffs...)
		w.mu.Unlock()
		time.Sleep(time.Duration(rand.Int64N(int64(300 * time.Millisecond))))
	}
	w.mu.Lock()
	iv := w.interval
	w.mu.Unlock()
	return map[string]any{"moveToJoiningMember": summarize(onJoin, iv), "moveAfterLeave": summarize(onLeave, iv)}, nil
}

// failover: four members own the group; one stops heartbeating (a crash) at
// a random moment, -cycles times (a fresh member replaces it each time).
func failover() (any, error) {
	w := newWorld()
	deadline := time.Now().Add(*timeout)
	live := []*member{}
	for i := 0; i < 4; i++ {
		live = append(live, w.start("g", fmt.Sprintf("m%d", i)))
	}
	defer func() {
		for _, m := range live {
			m.stop()
		}
	}()
	var d []time.Duration
	for i := 0; i < *cycles; i++ {
		if err := w.waitSettled(deadline); err != nil {
			return nil, err
		}
		time.Sleep(500*time.Millisecond + time.Duration(rand.Int64N(int64(300*time.Millisecond))))
		victim := live[0]
		live = live[1:]
		victim.stop()
		last := time.Unix(0, victim.last.Load())
		held := slices.Clone(victim.st.owned)
		for {
			w.mu.Lock()
			moved := true
			for _, s := range held {
				if o, ok := w.owner[s]; !ok || o == victim.st.id {
					moved = false
				}
			}
			w.mu.Unlock()
			if moved {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("failover: cycle %d: shards %v not moved", i, held)
			}
			time.Sleep(time.Millisecond)
		}
		d = append(d, time.Since(last))
		live = append(live, w.start("g", fmt.Sprintf("r%d", i)))
	}
	w.mu.Lock()
	iv := w.interval
	w.mu.Unlock()
	return map[string]any{"crashToOwnedElsewhere": summarize(d, iv)}, nil
}

// converge: -members members join one group at once.
func converge() (any, error) {
	w := newWorld()
	start := time.Now()
	deadline := start.Add(*timeout)
	ms := make([]*member, *members)
	for i := range ms {
		ms[i] = w.start("g", fmt.Sprintf("m%03d", i))
	}
	defer func() {
		for _, m := range ms {
			m.stop()
		}
	}()
	var owned time.Duration
	for {
		if owned == 0 && w.settled() {
			owned = time.Since(start)
		}
		if owned > 0 {
			var g protocol.GroupResponse
			resp, err := w.http.Get(*coord + "/coord/v1/monitoring/streams/" + url.PathEscape(*stream) + "/groups/g")
			if err == nil {
				_ = json.NewDecoder(resp.Body).Decode(&g)
				resp.Body.Close()
			}
			if g.State == "STABLE" && w.settled() {
				break
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("converge: not STABLE with every shard owned after %s", *timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	stable := time.Since(start)
	w.mu.Lock()
	defer w.mu.Unlock()
	maxBeats, sum := 0, 0
	for _, n := range w.beats {
		maxBeats = max(maxBeats, n)
		sum += n
	}
	return map[string]any{
		"members": *members, "shards": *shards, "intervalMs": w.interval.Milliseconds(),
		"secondsAllOwned": owned.Seconds(), "secondsStable": stable.Seconds(),
		"intervalsStable":        float64(stable) / float64(w.interval),
		"maxHeartbeatsPerMember": maxBeats, "meanHeartbeatsPerMember": float64(sum) / float64(len(w.beats)),
	}, nil
}
