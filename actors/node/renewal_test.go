package node

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// failStore fails every renewal while fail is set, as a store that does not answer in time.
type failStore struct {
	persistence.Store
	fail atomic.Bool
}

func (s *failStore) RenewNode(ctx context.Context, r persistence.NodeRenewal) (persistence.NodeStatus, error) {
	if s.fail.Load() {
		return persistence.NodeStatus{}, fmt.Errorf("renew node: %w: context deadline exceeded", persistence.ErrUnavailable)
	}
	return s.Store.RenewNode(ctx, r)
}

// syncBuffer is a log sink the node's own rounds may write to concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A renewal that fails once, while the groups are still confirmed by the previous one, changes
// nothing a member sees: no WARN. Renewals failing for the whole confirmation validity (the
// groups answer RETRY from then on) are logged once at WARN, and the recovery at INFO.
func TestNodeRenewalFailureWarnsOnlyOnceGroupsStopAnswering(t *testing.T) {
	ctx := context.Background()
	var clock atomic.Int64
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	clock.Store(t0.UnixNano())
	at := func(d time.Duration) { clock.Store(t0.Add(d).UnixNano()) }
	var logs syncBuffer
	fs := &failStore{Store: memstore.New()}
	n := New(Options{Store: fs, NodeID: "n", Rules: quickRules, TrustEmptyStore: true,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    func() time.Time { return time.Unix(0, clock.Load()) }})
	validity := group.Validity(quickRules)
	warns := func() int { return strings.Count(logs.String(), "cannot renew this node's record") }

	require.NoError(t, n.Round(ctx))
	fs.fail.Store(true)
	at(validity / 2)
	require.Error(t, n.Round(ctx))
	require.Zero(t, warns(), "one failed round within the validity is not worth a WARN:\n%s", logs.String())
	require.Contains(t, logs.String(), "level=DEBUG")

	at(validity + time.Millisecond)
	require.Error(t, n.Round(ctx))
	require.Error(t, n.Round(ctx))
	require.Equal(t, 1, warns(), "one WARN per outage:\n%s", logs.String())
	require.Contains(t, logs.String(), "level=WARN")

	fs.fail.Store(false)
	require.NoError(t, n.Round(ctx))
	require.Contains(t, logs.String(), "node record renewed again")

	fs.fail.Store(true)
	at(validity + validity/2)
	require.Error(t, n.Round(ctx))
	require.Equal(t, 1, warns(), "a new short failure is not logged at WARN:\n%s", logs.String())
}
