package persistencetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

// Two activations hold snapshots at the same revision and save at once:
// exactly one (the newer) wins, the other is fenced.
func testConcurrentSavesTwoActivations(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	for round := 0; round < 10; round++ {
		key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: fmt.Sprintf("g%d", round)}
		old, err := s.Activate(ctx, key, "old")
		require.NoError(t, err)
		cur, err := s.Activate(ctx, key, "new")
		require.NoError(t, err)

		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, snap := range []persistence.GroupSnapshot{old, cur} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.SaveGroup(ctx, key, snap.ActivationEpoch, snap.Revision,
					persistence.GroupChange{Meta: []byte(snap.Owner)})
			}()
		}
		wg.Wait()
		require.ErrorIs(t, errs[0], persistence.ErrFenced)
		require.NoError(t, errs[1])
		loaded, err := s.LoadGroup(ctx, key)
		require.NoError(t, err)
		require.Equal(t, "new", string(loaded.Meta))
	}
}

// Many writers of one activation race on the same expected revision: exactly
// one wins, the rest get ErrConflict.
func testConcurrentSavesSameActivation(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	a, err := s.Activate(ctx, gk, "n")
	require.NoError(t, err)
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.SaveGroup(ctx, gk, a.ActivationEpoch, 0, persistence.GroupChange{
				Meta: []byte(fmt.Sprint(i)), PutMembers: map[string][]byte{fmt.Sprintf("m%d", i): []byte("x")}})
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else {
			require.ErrorIs(t, err, persistence.ErrConflict)
		}
	}
	require.Equal(t, 1, wins)
	loaded, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, int64(1), loaded.Revision)
	require.Len(t, loaded.Members, 1, "a losing write leaked members")
}

// Nodes keep re-activating and saving at once. Every activation epoch is
// handed out once, every successful save gets a distinct revision, and the
// final revision equals the number of successful saves: no lost or
// interleaved write.
func testActivateSaveRace(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	const nodes, rounds = 4, 15
	var (
		mu     sync.Mutex
		epochs = map[int64]bool{}
		revs   = map[int64]bool{}
		wg     sync.WaitGroup
	)
	fail := make(chan error, nodes)
	for n := 0; n < nodes; n++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				snap, err := s.Activate(ctx, gk, fmt.Sprint("node", n))
				if err != nil {
					fail <- err
					return
				}
				rev, err := s.SaveGroup(ctx, gk, snap.ActivationEpoch, snap.Revision,
					persistence.GroupChange{PutMembers: map[string][]byte{fmt.Sprint(n): []byte(fmt.Sprint(r))}})
				mu.Lock()
				if epochs[snap.ActivationEpoch] {
					fail <- fmt.Errorf("activation epoch %d handed out twice", snap.ActivationEpoch)
				}
				epochs[snap.ActivationEpoch] = true
				if err == nil {
					if revs[rev] {
						fail <- fmt.Errorf("revision %d returned twice", rev)
					}
					revs[rev] = true
				} else if !errors.Is(err, persistence.ErrFenced) && !errors.Is(err, persistence.ErrConflict) {
					fail <- err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(fail)
	for err := range fail {
		require.NoError(t, err)
	}
	loaded, err := s.LoadGroup(ctx, gk)
	require.NoError(t, err)
	require.Equal(t, int64(nodes*rounds), loaded.ActivationEpoch)
	require.Equal(t, int64(len(revs)), loaded.Revision)
	require.NotZero(t, loaded.Revision)
}
