package recorder

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
)

func TestCheckFindsLostDuplicatesAndOverlaps(t *testing.T) {
	r := New()
	in := strings.Join([]string{
		`{"k":"handled","m":"a","s":0,"e":1,"id":"1-0","q":1,"t":100}`,
		`{"k":"acked","m":"a","s":0,"e":1,"id":"1-0","t":110}`,
		`{"k":"handled","m":"a","s":0,"e":1,"id":"2-0","q":2,"t":120}`,
		`{"k":"acked","m":"a","s":0,"e":1,"id":"2-0","t":300}`,
		`{"k":"handled","m":"b","s":0,"e":2,"id":"2-0","q":2,"t":200}`,
		`{"k":"acked","m":"b","s":0,"e":2,"id":"2-0","t":210}`,
		`{"k":"handled","m":"b","s":1,"e":2,"id":"1-0","q":3,"t":220}`,
		`not json, passed through`,
	}, "\n")
	var passed []string
	r.Read(strings.NewReader(in), func(s string) { passed = append(passed, s) })
	require.Equal(t, []string{"not json, passed through"}, passed)

	rep := r.Check(3)
	require.Equal(t, 2, rep.Processed)
	require.Equal(t, 1, rep.Lost, "seq 3 was handled but never acknowledged")
	require.Equal(t, []int64{3}, rep.LostSeqs)
	require.Equal(t, 1, rep.Duplicates, "seq 2 was handled twice")
	require.Len(t, rep.Overlaps, 1, "a acked on shard 0 until t=300 while b acked at t=210")
	require.Equal(t, 1, rep.HandOffs)
}

func TestCheckCleanRun(t *testing.T) {
	r := New()
	r.Add(Line{Kind: "handled", Member: "a", Shard: 0, Epoch: 1, EntryID: "1-0", Seq: 1, At: 1})
	r.Add(Line{Kind: "acked", Member: "a", Shard: 0, Epoch: 1, EntryID: "1-0", At: 2})
	r.Add(Line{Kind: "handled", Member: "b", Shard: 0, Epoch: 3, EntryID: "2-0", Seq: 2, At: 5})
	r.Add(Line{Kind: "acked", Member: "b", Shard: 0, Epoch: 3, EntryID: "2-0", At: 6})
	rep := r.Check(2)
	require.Zero(t, rep.Lost)
	require.Zero(t, rep.Duplicates)
	require.Empty(t, rep.Overlaps)
	require.Equal(t, 1, rep.HandOffs)
}

func TestSettleCountsEntriesNoLongerPending(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	rdb := srv.Client()
	require.NoError(t, rdb.XGroupCreateMkStream(ctx, "orders:0", "workers", "0").Err())
	id1 := rdb.XAdd(ctx, &redis.XAddArgs{Stream: "orders:0", Values: map[string]any{"seq": 1}}).Val()
	id2 := rdb.XAdd(ctx, &redis.XAddArgs{Stream: "orders:0", Values: map[string]any{"seq": 2}}).Val()
	require.NoError(t, rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: "a", Streams: []string{"orders:0", ">"}}).Err())
	require.NoError(t, rdb.XAck(ctx, "orders:0", "workers", id1).Err()) // acked, reply "lost"

	r := New()
	r.Add(Line{Kind: "handled", Member: "a", Shard: 0, Epoch: 1, EntryID: id1, Seq: 1, At: 1})
	r.Add(Line{Kind: "handled", Member: "a", Shard: 0, Epoch: 1, EntryID: id2, Seq: 2, At: 2})
	require.Equal(t, 2, r.Check(2).Lost)
	n, err := r.Settle(ctx, rdb, "orders", "workers")
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the entry no longer pending is settled")
	rep := r.Check(2)
	require.Equal(t, 1, rep.Lost)
	require.Equal(t, []int64{2}, rep.LostSeqs)
}
