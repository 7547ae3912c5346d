package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// ---- scenarios: handoff, failover, converge ---------------------------------

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
	a, b := w.start(*group, "a"), w.start(*group, "b")
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
		c := w.start(*group, fmt.Sprintf("c%d", i))
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
		live = append(live, w.start(*group, fmt.Sprintf("m%d", i)))
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
		live = append(live, w.start(*group, fmt.Sprintf("r%d", i)))
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
		ms[i] = w.start(*group, fmt.Sprintf("m%03d", i))
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
			resp, err := w.http.Get(*coord + "/coord/v1/monitoring/streams/" + url.PathEscape(*stream) + "/groups/" + url.PathEscape(*group))
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
