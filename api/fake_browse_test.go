package api

import (
	"context"
	"strconv"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (f *fakeService) Offsets(_ context.Context, p, g string) (protocol.OffsetsResponse, error) {
	f.record("Offsets "+p+"/"+g, nil)
	return protocol.OffsetsResponse{StreamPrefix: p, ConsumerGroup: g, ShardCount: 2, MetadataVersion: 1, Shards: []protocol.ShardOffsets{
		{ShardIndex: 0, StreamKey: p + ":0", Exists: true, Length: 5, LastGeneratedID: "5-0", GroupExists: true, LastDeliveredID: "3-0",
			EntriesRead: 3, Lag: 2, Pending: 1, MemoryUsage: 1200, Owner: "m1", TargetOwner: "m1",
			Consumers: protocol.ShardConsumers{Count: 1, Names: []protocol.ShardConsumer{{Name: "m1", Pending: 1, IdleMs: 40}}}},
		{ShardIndex: 1, StreamKey: p + ":1", Lag: -1, EntriesRead: -1, MemoryUsage: -1},
	}}, f.err
}

func (f *fakeService) Messages(_ context.Context, p string, shard int, from string, count int) (protocol.MessagesResponse, error) {
	f.record("Messages "+p+"/"+strconv.Itoa(shard)+" from="+from+" count="+strconv.Itoa(count), nil)
	next := "2-0"
	return protocol.MessagesResponse{StreamPrefix: p, ShardIndex: shard, StreamKey: protocol.StreamKey(p, shard),
		Messages:   []protocol.StreamMessage{{ID: "1-0", Fields: map[string]string{"k": "v"}}, {ID: "2-0", Fields: map[string]string{"k": "w"}}},
		NextCursor: &next}, f.err
}
