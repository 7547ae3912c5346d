package recorder

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
)

// acked is a fenced acknowledgement on shard 0.
func acked(member string, token, at int64) Line {
	return Line{Kind: "acked", Member: member, Shard: 0, Epoch: 1, EntryID: "1-0", At: at, Token: token}
}

func TestFenceHistoryCleanHandOffPasses(t *testing.T) {
	r := New()
	r.Add(acked("a", 1, 10))
	r.Add(acked("a", 1, 20))
	r.Add(acked("b", 3, 30)) // token 2 was the clear between a and b
	r.Add(acked("a", 5, 40)) // back to a with a newer token
	r.Add(Line{Kind: "acked", Member: "c", Shard: 1, Epoch: 1, EntryID: "1-0", At: 5, Token: 1})
	rep := r.Check(0)
	require.Empty(t, rep.FenceOverlaps)
	require.Equal(t, 5, rep.FencedAcks)
}

func TestFenceHistorySharedTokenFails(t *testing.T) {
	r := New()
	r.Add(acked("a", 4, 10))
	r.Add(acked("b", 4, 20))
	rep := r.Check(0)
	require.Len(t, rep.FenceOverlaps, 1)
	require.Contains(t, rep.FenceOverlaps[0], "token 4 acknowledged by both a and b")
}

func TestFenceHistoryOutOfOrderTokenFails(t *testing.T) {
	r := New()
	r.Add(acked("a", 2, 10))
	r.Add(acked("b", 3, 20))
	r.Add(acked("a", 2, 30)) // a's fence had moved on to b
	r.Add(acked("a", 2, 31)) // the same window: reported once
	rep := r.Check(0)
	require.Len(t, rep.FenceOverlaps, 1)
	require.Contains(t, rep.FenceOverlaps[0], "a acknowledged with token 2")
	require.Contains(t, rep.FenceOverlaps[0], "after b acknowledged with token 3")
}

func TestFenceHistoryOwnAcksOutOfOrderPass(t *testing.T) {
	// One process's concurrent workers may report its own acks slightly out
	// of order; only other members' tokens count.
	r := New()
	r.Add(acked("a", 3, 10))
	r.Add(acked("a", 1, 11))
	require.Empty(t, r.Check(0).FenceOverlaps)
}

func TestFenceHistoryIgnoresUnfencedAcks(t *testing.T) {
	// Records of an older member process (no "ft" field) read as token 0.
	r := New()
	r.Read(strings.NewReader(strings.Join([]string{
		`{"k":"acked","m":"a","s":0,"e":1,"id":"1-0","t":10}`,
		`{"k":"acked","m":"b","s":0,"e":2,"id":"2-0","t":20}`,
		`{"k":"acked","m":"b","s":0,"e":2,"id":"3-0","t":30,"ft":7}`,
	}, "\n")), nil)
	rep := r.Check(0)
	require.Empty(t, rep.FenceOverlaps)
	require.Equal(t, 1, rep.FencedAcks)
}

func TestFenceHistoryTokenAboveFinalFenceFails(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	rdb := srv.Client()
	require.NoError(t, rdb.HSet(ctx, protocol.FenceKey("orders:0", "workers"), "owner", "b", "token", 3).Err())
	// Shard 1 has no fence at all: its final token reads as 0.

	r := New()
	r.Add(acked("a", 1, 10))
	r.Add(acked("b", 3, 20))
	require.NoError(t, r.ReadFences(ctx, rdb, "orders", "workers", 2))
	require.Empty(t, r.Check(0).FenceOverlaps, "tokens up to the final one are fine")

	r.Add(acked("b", 4, 30))
	r.Add(Line{Kind: "acked", Member: "c", Shard: 1, Epoch: 1, EntryID: "1-0", At: 5, Token: 1})
	rep := r.Check(0)
	require.Len(t, rep.FenceOverlaps, 2)
	require.Contains(t, rep.FenceOverlaps[0], "shard 0: b acknowledged with token 4, above the shard's final fence token 3")
	require.Contains(t, rep.FenceOverlaps[1], "shard 1: c acknowledged with token 1, above the shard's final fence token 0")
}
