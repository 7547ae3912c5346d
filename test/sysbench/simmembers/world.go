package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// ---- event-driven members (handoff, failover, converge) -------------------

// world runs members that heartbeat on their own schedule and records, per
// shard, when it was released and when a member was granted it.
type world struct {
	http *http.Client
	rdb  *redis.Client // -transport redis: heartbeats go through the Redis mailbox (mailbox.go)
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
	w := &world{http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256, TLSClientConfig: clientTLS()}},
		released: map[int]time.Time{}, owner: map[int]string{}, beats: map[string]int{}, nshards: *shards}
	if *transport == protocol.TransportRedis {
		w.rdb = redis.NewClient(&redis.Options{Addr: *redisAddr, PoolSize: 64})
	}
	return w
}

func (w *world) send(m *state, body []byte) (*protocol.HeartbeatResponse, error) {
	if w.rdb != nil {
		return w.mbSend(m, body)
	}
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
		if w.rdb != nil {
			w.mbWait(ctx, m, wait) // a nudge ends the wait
		} else {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
		if ctx.Err() != nil {
			return
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

// clientTLS trusts -ca-file (nil without it: the system's CAs).
func clientTLS() *tls.Config {
	if *caFile == "" {
		return nil
	}
	b, err := os.ReadFile(*caFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "simmembers: -ca-file:", err)
		os.Exit(2)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		fmt.Fprintln(os.Stderr, "simmembers: -ca-file", *caFile, "holds no PEM certificate")
		os.Exit(2)
	}
	return &tls.Config{RootCAs: pool}
}
