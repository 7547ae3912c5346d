package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

var gk = persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "billing"}

func newStore(t *testing.T, c redis.UniversalClient) *redisstore.Store {
	t.Helper()
	s, err := redisstore.New(c, redisstore.Options{})
	require.NoError(t, err)
	return s
}

func TestNewRejectsBadKeyPrefix(t *testing.T) {
	_, err := redisstore.New(redis.NewClient(&redis.Options{}), redisstore.Options{KeyPrefix: "x{y}"})
	require.Error(t, err)
}

// The key layout documented in doc.go is what is actually written.
func TestWrittenKeys(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := srv.Client()
	s := newStore(t, c)
	_, err := s.CreateStream(ctx, persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 2, MetadataVersion: 1})
	require.NoError(t, err)
	a, err := s.Activate(ctx, gk, "node-a")
	require.NoError(t, err)
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte("{}"), PutMembers: map[string][]byte{"m1": []byte("r")}})
	require.NoError(t, err)

	keys, err := c.Keys(ctx, "*").Result()
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"rsc:{s:orders}:stream", "rsc:streams", "rsc:groups",
		"rsc:{g:orders|billing}:meta", "rsc:{g:orders|billing}:members"}, keys)
	meta, err := c.HGetAll(ctx, "rsc:{g:orders|billing}:meta").Result()
	require.NoError(t, err)
	require.Equal(t, map[string]string{"format": "1", "activation": "1", "revision": "1", "live": "1",
		"owner": "node-a", "meta": "{}", "prefix": "orders", "group": "billing"}, meta)
	require.Equal(t, "1", c.HGet(ctx, "rsc:{s:orders}:stream", "format").Val())
}

// A record written by a newer release is refused, not misread.
func TestRejectsNewerFormat(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := srv.Client()
	s := newStore(t, c)
	_, err := s.CreateStream(ctx, persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 2})
	require.NoError(t, err)
	a, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	require.NoError(t, c.HSet(ctx, "rsc:{g:orders|billing}:meta", "format", "2").Err())
	require.NoError(t, c.HSet(ctx, "rsc:{s:orders}:stream", "format", "2").Err())

	_, err = s.Activate(ctx, gk, "n")
	require.ErrorIs(t, err, persistence.ErrUnsupportedFormat)
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte("x")})
	require.ErrorIs(t, err, persistence.ErrUnsupportedFormat)
	require.ErrorIs(t, s.DeleteGroup(ctx, gk, a.ActivationEpoch), persistence.ErrUnsupportedFormat)
	_, err = s.LoadGroup(ctx, gk)
	require.ErrorIs(t, err, persistence.ErrUnsupportedFormat)
	_, err = s.GetStream(ctx, "orders")
	require.ErrorIs(t, err, persistence.ErrUnsupportedFormat)
	require.ErrorContains(t, err, `format "2"`)
	_, err = s.ListStreams(ctx)
	require.ErrorIs(t, err, persistence.ErrUnsupportedFormat)
	_, err = s.UpdateStream(ctx, persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 3}, 1)
	require.ErrorIs(t, err, persistence.ErrUnsupportedFormat)
}

// After SCRIPT FLUSH (or a Redis restart) EVALSHA falls back to EVAL.
func TestScriptCacheFlush(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := srv.Client()
	s := newStore(t, c)
	a, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	require.NoError(t, c.ScriptFlush(ctx).Err())
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte("x")})
	require.NoError(t, err)
}

// While redis-server is down every call returns ErrUnavailable; after it is
// back the same store works again, and (with persistence) epochs continue.
func TestOutageUnavailableThenRecovers(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartWithOptions(t, redistest.Options{Persist: true})
	c := srv.NewClient(&redis.Options{DialTimeout: 200 * time.Millisecond, ReadTimeout: 500 * time.Millisecond,
		WriteTimeout: 500 * time.Millisecond, MaxRetries: 1, DialerRetries: 1})
	t.Cleanup(func() { _ = c.Close() })
	s := newStore(t, c)
	a, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	rev, err := s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte("v1")})
	require.NoError(t, err)

	srv.Stop()
	// Each call gets its own generous deadline: the error must come from the
	// connection, not from the context running out.
	down := func(what string, call func(ctx context.Context) error) {
		t.Helper()
		opCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		err := call(opCtx)
		require.ErrorIs(t, err, persistence.ErrUnavailable, what)
		require.NotErrorIs(t, err, context.DeadlineExceeded, what)
	}
	p := redisstore.NewProvisioner(c)
	down("Ping", s.Ping)
	down("SaveGroup", func(ctx context.Context) error {
		_, err := s.SaveGroup(ctx, gk, a.ActivationEpoch, rev, persistence.GroupChange{Meta: []byte("v2")})
		if err != nil {
			require.ErrorContains(t, err, "save group orders/billing")
		}
		return err
	})
	down("LoadGroup", func(ctx context.Context) error { _, err := s.LoadGroup(ctx, gk); return err })
	down("Activate", func(ctx context.Context) error { _, err := s.Activate(ctx, gk, "n"); return err })
	down("GetStream", func(ctx context.Context) error { _, err := s.GetStream(ctx, "orders"); return err })
	down("ListGroups", func(ctx context.Context) error { _, err := s.ListGroups(ctx, ""); return err })
	down("EnsureStreams", func(ctx context.Context) error { return p.EnsureStreams(ctx, "orders", 0, 2) })
	down("EnsureGroup", func(ctx context.Context) error { return p.EnsureGroup(ctx, "orders", "billing", 0, 2) })
	down("ShardInfo", func(ctx context.Context) error { _, err := p.ShardInfo(ctx, "orders", "billing", 0); return err })

	srv.Restart()
	require.Eventually(t, func() bool { return s.Ping(ctx) == nil }, 5*time.Second, 20*time.Millisecond)
	loaded, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, "v1", string(loaded.Meta))
	rev, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, rev, persistence.GroupChange{Meta: []byte("v2")})
	require.NoError(t, err)
	require.Equal(t, int64(2), rev)
	a2, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	require.Equal(t, a.ActivationEpoch+1, a2.ActivationEpoch)
}

// The store does not hold the client's life: Close leaves a caller's client
// usable unless CloseClient is set.
func TestCloseClientOption(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := srv.NewClient(nil)
	s := newStore(t, c)
	require.NoError(t, s.Close())
	require.NoError(t, c.Ping(ctx).Err())
	owned, err := redisstore.New(c, redisstore.Options{CloseClient: true})
	require.NoError(t, err)
	require.NoError(t, owned.Close())
	require.ErrorIs(t, owned.Ping(ctx), persistence.ErrUnavailable)
}

// A server that stops answering (here: CLIENT PAUSE) yields ErrUnavailable
// after the client's read timeout, not a hang.
func TestHungServerTimesOut(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	c := srv.NewClient(&redis.Options{ReadTimeout: 200 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	s := newStore(t, c)
	a, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	require.NoError(t, srv.Client().Do(ctx, "CLIENT", "PAUSE", "1500", "ALL").Err())
	start := time.Now()
	_, err = s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte("x")})
	require.ErrorIs(t, err, persistence.ErrUnavailable)
	require.Less(t, time.Since(start), time.Second)
	// Outcome unknown (here go-redis drops the connection, so Redis never
	// runs it; a write that reached Redis would be applied): the store works
	// again after the pause and the group is at revision 0 or 1.
	var snap persistence.GroupSnapshot
	require.Eventually(t, func() bool {
		snap, err = s.LoadGroup(ctx, gk)
		return err == nil
	}, 5*time.Second, 50*time.Millisecond)
	require.Contains(t, []int64{0, 1}, snap.Revision)
}
