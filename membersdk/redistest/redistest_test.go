package redistest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/redistest"
)

func TestStartStopRestart(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := srv.Client()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("set: %v", err)
	}
	srv.Stop()
	if srv.Running() {
		t.Fatal("running after Stop")
	}
	shortCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := c.Ping(shortCtx).Err(); err == nil {
		t.Fatal("ping succeeded while stopped")
	}
	srv.Restart()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("ping after restart: %v", err)
	}
	if n, _ := c.Exists(ctx, "k").Result(); n != 0 {
		t.Fatal("non-persistent server kept data across restart")
	}
}

func TestPersistKeepsData(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartWithOptions(t, redistest.Options{Persist: true})
	c := srv.Client()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("set: %v", err)
	}
	addr := srv.Addr()
	srv.Stop()
	srv.Restart()
	if srv.Addr() != addr {
		t.Fatalf("addr changed: %s -> %s", addr, srv.Addr())
	}
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("get after restart = %q, %v", v, err)
	}
}

func TestParallelServers(t *testing.T) {
	a, b := redistest.Start(t), redistest.Start(t)
	if a.Addr() == b.Addr() {
		t.Fatal("two servers share an address")
	}
}

func TestCommandCalls(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client()
	ctx := context.Background()
	srv.ResetStats()
	for i := 0; i < 3; i++ {
		if err := c.HSet(ctx, "h", "f", i).Err(); err != nil {
			t.Fatal(err)
		}
	}
	calls := srv.CommandCalls()
	if calls["hset"] != 3 {
		t.Fatalf("hset calls = %d, want 3 (all: %v)", calls["hset"], calls)
	}
	srv.ResetStats()
	if n := srv.CommandCalls()["hset"]; n != 0 {
		t.Fatalf("hset calls after reset = %d", n)
	}
}

// A key on the wrong node answers MOVED, and a cluster client finds it.
func TestStartClusterSplitsSlotsOverMasters(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	ctx := context.Background()
	cc := c.Client()
	moved := 0
	for i := 0; i < 30; i++ {
		key := fmt.Sprintf("k%d", i)
		if err := cc.Set(ctx, key, i, 0).Err(); err != nil {
			t.Fatalf("cluster client SET %s: %v", key, err)
		}
		if err := c.Nodes[0].Client().Get(ctx, key).Err(); err != nil && strings.HasPrefix(err.Error(), "MOVED") {
			moved++
		}
	}
	if moved == 0 || moved == 30 {
		t.Fatalf("%d of 30 keys answered MOVED on the first master; want some on each side", moved)
	}
}
