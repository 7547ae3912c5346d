package chaos

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// config is one chaos run.
type config struct {
	Seed         int64
	Duration     time.Duration // fault phase
	Prefix       string
	Group        string
	Shards       int
	Members      int
	Proxied      int // members m0…m(Proxied-1) heartbeat through the slow proxies
	Coordinators int
	Rate         int // produced entries per second
	Work         time.Duration
	Heartbeat    time.Duration
	Lease        time.Duration
	Rebalance    time.Duration
	MaxDown      int // members killed or paused at once
	// Transport is how members heartbeat: "http" (default), "redis" (the
	// Redis mailbox; no member heartbeats through the slow proxies) or
	// "mixed" (the last MailboxMembers members on the mailbox, the others
	// over HTTP). With any mailbox member the coordinators run with
	// mailbox.enabled.
	Transport string
	// MailboxMembers is how many members (the last ones) heartbeat through
	// the mailbox.
	MailboxMembers int
	// Redis is what Redis is: "single" (one redis-server, whose faults are
	// redis-stop) or "sentinel" (a primary with two replicas behind three
	// Sentinels, whose faults are redis-failover; the coordinators run with
	// store.wait-replicas 1 and the producer with WaitReplicas 1).
	Redis string
	// ExactlyOnce runs the pipeline of TestChaosExactlyOnce: an idempotent
	// producer, members that commit an output and a sum with each entry.
	ExactlyOnce bool
	// Static makes every member static (its member id as instance id).
	Static bool
	// ReshardMin and ReshardMax bound the shard counts reshard operations
	// scale to (FaultReshard); ReshardMax 0: no reshard operations.
	ReshardMin, ReshardMax int
}

const (
	defaultSeed     = 20261129
	defaultDuration = 60 * time.Second
)

func loadConfig(t *testing.T) config {
	cfg := config{
		Seed: defaultSeed, Duration: defaultDuration,
		Prefix: "orders", Group: "workers", Shards: 12, Members: 6, Proxied: 2, Coordinators: 1,
		Rate: 100, Work: 5 * time.Millisecond,
		Heartbeat: 250 * time.Millisecond, Lease: 2 * time.Second, Rebalance: 4 * time.Second,
		MaxDown: 2, ReshardMin: 4, ReshardMax: 16,
	}
	if v := os.Getenv("RSC_CHAOS_SEED"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("RSC_CHAOS_SEED=%q: %v", v, err)
		}
		cfg.Seed = s
	}
	if v := os.Getenv("RSC_CHAOS_COORDINATORS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("RSC_CHAOS_COORDINATORS=%q: want a number of coordinator processes, at least 1 (%v)", v, err)
		}
		cfg.Coordinators = n
	}
	cfg.Redis = "single"
	if v := os.Getenv("RSC_CHAOS_REDIS"); v != "" {
		if v != "single" && v != "sentinel" {
			t.Fatalf("RSC_CHAOS_REDIS=%q: want single (one redis-server; redis-stop faults) or sentinel (a primary, two replicas and three Sentinels; redis-failover faults)", v)
		}
		cfg.Redis = v
	}
	cfg.Transport = "http"
	if v := os.Getenv("RSC_CHAOS_TRANSPORT"); v != "" {
		if v != "http" && v != "redis" && v != "mixed" {
			t.Fatalf("RSC_CHAOS_TRANSPORT=%q: want http, redis (members heartbeat through the Redis mailbox) or mixed (a third of them do)", v)
		}
		cfg.Transport = v
	}
	cfg.setTransport(cfg.Transport)
	if v := os.Getenv("RSC_CHAOS_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Second {
			t.Fatalf("RSC_CHAOS_DURATION=%q: want a Go duration of at least 10s (%v)", v, err)
		}
		cfg.Duration = d
	}
	hideChaosEnv(t)
	return cfg
}

// setTransport makes the members heartbeat over transport (http, redis
// or mixed).
func (cfg *config) setTransport(transport string) {
	cfg.Transport = transport
	switch transport {
	case "redis":
		cfg.MailboxMembers = cfg.Members
		cfg.Proxied = 0 // the slow proxies are on the HTTP path
	case "mixed":
		cfg.MailboxMembers = cfg.Members / 3
		cfg.Proxied = min(cfg.Proxied, cfg.Members-cfg.MailboxMembers)
	default:
		cfg.MailboxMembers = 0
	}
}

// chaosEnv are the settings of this test. The coordinator refuses to start
// on an RSC_* variable it does not know, and the harness passes the test's
// environment to it, so they are removed from the environment once read
// (and put back at cleanup).
var chaosEnv = []string{"RSC_CHAOS_SEED", "RSC_CHAOS_DURATION", "RSC_CHAOS_REPORT", "RSC_CHAOS_COORDINATORS", "RSC_CHAOS_TRANSPORT", "RSC_CHAOS_REDIS"}

func hideChaosEnv(t *testing.T) {
	for _, k := range chaosEnv {
		if v, ok := os.LookupEnv(k); ok {
			_ = os.Unsetenv(k)
			t.Cleanup(func() { _ = os.Setenv(k, v) })
		}
	}
}
