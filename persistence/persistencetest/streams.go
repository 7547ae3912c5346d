package persistencetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

func sampleStream(prefix string) persistence.StreamRecord {
	created := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	return persistence.StreamRecord{
		StreamPrefix: prefix, ShardCount: 4, MetadataVersion: 1,
		CreatedAt: created, UpdatedAt: created, CreatedBy: "alice", Reason: "test",
		Extra: []byte(`{"migrations":[]}`),
	}
}

func requireStreamEqual(t *testing.T, want, got persistence.StreamRecord) {
	t.Helper()
	require.Equal(t, want.StreamPrefix, got.StreamPrefix)
	require.Equal(t, want.ShardCount, got.ShardCount)
	require.Equal(t, want.MetadataVersion, got.MetadataVersion)
	require.True(t, want.CreatedAt.Equal(got.CreatedAt), "CreatedAt %v != %v", want.CreatedAt, got.CreatedAt)
	require.True(t, want.UpdatedAt.Equal(got.UpdatedAt), "UpdatedAt %v != %v", want.UpdatedAt, got.UpdatedAt)
	require.Equal(t, want.CreatedBy, got.CreatedBy)
	require.Equal(t, want.Reason, got.Reason)
	require.Equal(t, string(want.Extra), string(got.Extra))
	require.Equal(t, want.Extra == nil, got.Extra == nil, "Extra nil-ness")
	require.Equal(t, want.Revision, got.Revision)
}

func testStreamCreateGet(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	_, err := s.GetStream(ctx, "orders")
	require.ErrorIs(t, err, persistence.ErrNotFound)

	in := sampleStream("orders")
	in.Revision = 42 // ignored
	got, err := s.CreateStream(ctx, in)
	require.NoError(t, err)
	want := in
	want.Revision = 1
	requireStreamEqual(t, want, got)

	loaded, err := s.GetStream(ctx, "orders")
	require.NoError(t, err)
	requireStreamEqual(t, want, loaded)

	_, err = s.CreateStream(ctx, sampleStream("orders"))
	require.ErrorIs(t, err, persistence.ErrExists)

	// Zero times are filled in by the store.
	noTimes := sampleStream("nt")
	noTimes.CreatedAt, noTimes.UpdatedAt, noTimes.Extra = time.Time{}, time.Time{}, nil
	got, err = s.CreateStream(ctx, noTimes)
	require.NoError(t, err)
	require.False(t, got.CreatedAt.IsZero())
	require.False(t, got.UpdatedAt.IsZero())
	loaded, err = s.GetStream(ctx, "nt")
	require.NoError(t, err)
	requireStreamEqual(t, got, loaded)
}

func testStreamList(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	list, err := s.ListStreams(ctx)
	require.NoError(t, err)
	require.Empty(t, list)
	for _, p := range []string{"payments", "orders", "audit"} {
		_, err := s.CreateStream(ctx, sampleStream(p))
		require.NoError(t, err)
	}
	list, err = s.ListStreams(ctx)
	require.NoError(t, err)
	require.Len(t, list, 3)
	require.Equal(t, []string{"audit", "orders", "payments"},
		[]string{list[0].StreamPrefix, list[1].StreamPrefix, list[2].StreamPrefix})
	require.Equal(t, int64(1), list[0].Revision)
}

func testStreamUpdate(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	created, err := s.CreateStream(ctx, sampleStream("orders"))
	require.NoError(t, err)

	upd := created
	upd.ShardCount, upd.MetadataVersion = 8, 2
	upd.UpdatedAt = created.UpdatedAt.Add(time.Minute)
	upd.Reason, upd.Extra = "scale", []byte(`{"migrations":[1]}`)
	upd.CreatedBy, upd.CreatedAt = "mallory", time.Unix(0, 0) // kept from the stored record
	got, err := s.UpdateStream(ctx, upd, 1)
	require.NoError(t, err)
	want := upd
	want.CreatedBy, want.CreatedAt, want.Revision = created.CreatedBy, created.CreatedAt, 2
	requireStreamEqual(t, want, got)

	loaded, err := s.GetStream(ctx, "orders")
	require.NoError(t, err)
	requireStreamEqual(t, want, loaded)

	// Same metadata version is allowed (only a decrease is refused).
	got, err = s.UpdateStream(ctx, loaded, 2)
	require.NoError(t, err)
	require.Equal(t, int64(3), got.Revision)
}

func testStreamUpdateConflicts(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	rec := sampleStream("orders")
	rec.MetadataVersion = 5
	created, err := s.CreateStream(ctx, rec)
	require.NoError(t, err)

	_, err = s.UpdateStream(ctx, created, 7)
	require.ErrorIs(t, err, persistence.ErrConflict, "stale revision")

	lower := created
	lower.MetadataVersion = 4
	_, err = s.UpdateStream(ctx, lower, 1)
	require.ErrorIs(t, err, persistence.ErrConflict, "metadataVersion regression")

	loaded, err := s.GetStream(ctx, "orders")
	require.NoError(t, err)
	requireStreamEqual(t, created, loaded)

	missing := sampleStream("missing")
	_, err = s.UpdateStream(ctx, missing, 1)
	require.ErrorIs(t, err, persistence.ErrNotFound)
}
