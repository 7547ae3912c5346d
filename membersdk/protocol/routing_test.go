package protocol

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// Vectors from SPEC §6, computed with the reference client's hashing module.
func TestMurmur3AndRouteMatchReferenceVectors(t *testing.T) {
	counts := []uint32{1, 3, 4, 7, 8, 16, 1000}
	cases := []struct {
		key    string
		hash   int32
		routes []uint32
	}{
		{"order-123", -1381100355, []uint32{0, 1, 1, 6, 5, 13, 941}},
		{"", 0, []uint32{0, 0, 0, 0, 0, 0, 0}},
		{"a", 1009084850, []uint32{0, 2, 2, 4, 2, 2, 850}},
		{"hello world", 1586663183, []uint32{0, 2, 3, 0, 7, 15, 183}},
		{"사용자-42", 715628272, []uint32{0, 1, 0, 2, 0, 0, 272}},
		{"customer:00017", -622003484, []uint32{0, 2, 0, 0, 4, 4, 812}},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			require.Equal(t, tc.hash, int32(Murmur3([]byte(tc.key), 0)))
			for i, n := range counts {
				require.Equal(t, tc.routes[i], Route(tc.key, n), "shardCount %d", n)
			}
		})
	}
}

// SPEC §6 rejection-sampling vector: "k1" hashes (seed 0) above the limit
// L = 3,000,000,000 for shardCount 3e9, so the route comes from attempt 1.
func TestRouteRejectionSampling(t *testing.T) {
	require.GreaterOrEqual(t, Murmur3([]byte("k1"), 0), uint32(3_000_000_000), "attempt 0 must be rejected for this vector to test the retry")
	require.Equal(t, uint32(599588056), Route("k1", 3_000_000_000))
}

func TestRedisSlotVectors(t *testing.T) {
	for key, slot := range map[string]int{"orders:0": 8578, "orders:1": 12707, "orders:7": 4453, "create-order:3": 5003, "foo": 12182} {
		require.Equal(t, slot, RedisSlot(key), key)
	}
	require.Equal(t, RedisSlot("foo"), RedisSlot("{foo}:bar"), "hash tag")
}

func TestRouteIsUniformEnough(t *testing.T) {
	const n, keys = 7, 70_000
	var hist [n]int
	for i := 0; i < keys; i++ {
		hist[Route("key-"+strconv.Itoa(i), n)]++
	}
	for s, c := range hist {
		require.InDelta(t, keys/n, c, keys/n/10, "shard %d", s)
	}
}

func TestRoutingTable(t *testing.T) {
	r := Routing("orders", "workers", 8, 3)
	require.Equal(t, "orders:{shardIndex}", r.StreamKeyPattern)
	require.Len(t, r.Shards, 8)
	require.Equal(t, RouteShard{ShardIndex: 7, StreamKey: "orders:7", RedisSlot: 4453}, r.Shards[7])
}
