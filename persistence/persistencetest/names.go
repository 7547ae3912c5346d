package persistencetest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

var oddNames = []string{
	"with space", "{braces}", "}{", "a|b", "a:b", "%41", "ünï-cødé", "사용자", "*?[x]", "\\", "emoji-🙂", "a\x00b", "\n", "..",
}

func testOddNames(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	for _, name := range oddNames {
		rec := sampleStream(name)
		created, err := s.CreateStream(ctx, rec)
		require.NoError(t, err, "create stream %q", name)
		got, err := s.GetStream(ctx, name)
		require.NoError(t, err, "get stream %q", name)
		requireStreamEqual(t, created, got)

		key := persistence.GroupKey{StreamPrefix: name, ConsumerGroup: name + "{g}"}
		a, err := s.Activate(ctx, key, "node "+name)
		require.NoError(t, err, "activate %q", name)
		members := map[string][]byte{name: []byte(name), "m:" + name: []byte("x")}
		_, err = s.SaveGroup(ctx, key, a.ActivationEpoch, 0, persistence.GroupChange{Meta: []byte(name), PutMembers: members})
		require.NoError(t, err, "save %q", name)
		loaded, err := s.LoadGroup(ctx, key)
		require.NoError(t, err, "load %q", name)
		requireSnapshot(t, persistence.GroupSnapshot{Key: key, Revision: 1, ActivationEpoch: 1,
			Owner: "node " + name, Meta: []byte(name), Members: members}, loaded)
		groups, err := s.ListGroups(ctx, name)
		require.NoError(t, err)
		require.Equal(t, []persistence.GroupKey{key}, groups, "list groups of %q", name)
	}
	streams, err := s.ListStreams(ctx)
	require.NoError(t, err)
	require.Len(t, streams, len(oddNames))
	all, err := s.ListGroups(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, len(oddNames))
}

// Keys that a naive concatenation would merge stay apart.
func testNoKeyCollisions(t *testing.T, s persistence.Store) {
	ctx := context.Background()
	pairs := []persistence.GroupKey{
		{StreamPrefix: "a|b", ConsumerGroup: "c"},
		{StreamPrefix: "a", ConsumerGroup: "b|c"},
		{StreamPrefix: "a:b", ConsumerGroup: "c"},
		{StreamPrefix: "a", ConsumerGroup: "b:c"},
		{StreamPrefix: "a%7Cb", ConsumerGroup: "c"},
		{StreamPrefix: "", ConsumerGroup: "x"},
	}
	for i, k := range pairs {
		a, err := s.Activate(ctx, k, "n")
		require.NoError(t, err)
		require.Equal(t, int64(1), a.ActivationEpoch, "key %d %+v shares state with another", i, k)
		_, err = s.SaveGroup(ctx, k, 1, 0, persistence.GroupChange{Meta: []byte{byte('0' + i)}})
		require.NoError(t, err)
	}
	for i, k := range pairs {
		snap, err := s.LoadGroup(ctx, k)
		require.NoError(t, err)
		require.Equal(t, string([]byte{byte('0' + i)}), string(snap.Meta))
	}
	all, err := s.ListGroups(ctx, "")
	require.NoError(t, err)
	require.Len(t, all, len(pairs))
	only, err := s.ListGroups(ctx, "a")
	require.NoError(t, err)
	require.Len(t, only, 2)
	_, err = s.CreateStream(ctx, sampleStream("a|b"))
	require.NoError(t, err)
	_, err = s.CreateStream(ctx, sampleStream("a%7Cb"))
	require.NoError(t, err)
}

func testCanceledContext(t *testing.T, s persistence.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	check := func(what string, err error) {
		t.Helper()
		require.Error(t, err, what)
		require.True(t, errors.Is(err, context.Canceled), "%s: %v does not wrap context.Canceled", what, err)
		require.ErrorIs(t, err, persistence.ErrUnavailable, what)
	}
	_, err := s.CreateStream(ctx, sampleStream("x"))
	check("CreateStream", err)
	_, err = s.GetStream(ctx, "x")
	check("GetStream", err)
	_, err = s.ListStreams(ctx)
	check("ListStreams", err)
	_, err = s.UpdateStream(ctx, sampleStream("x"), 1)
	check("UpdateStream", err)
	_, err = s.Activate(ctx, gk, "n")
	check("Activate", err)
	_, err = s.SaveGroup(ctx, gk, 1, 0, persistence.GroupChange{Meta: []byte("x")})
	check("SaveGroup", err)
	_, err = s.LoadGroup(ctx, gk)
	check("LoadGroup", err)
	_, err = s.ListGroups(ctx, "")
	check("ListGroups", err)
	check("DeleteGroup", s.DeleteGroup(ctx, gk, 1))
	check("Ping", s.Ping(ctx))

	// Nothing was written.
	_, err = s.GetStream(context.Background(), "x")
	require.ErrorIs(t, err, persistence.ErrNotFound)
	_, err = s.LoadGroup(context.Background(), gk)
	require.ErrorIs(t, err, persistence.ErrNotFound)
}
