package protocol

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/twmb/murmur3"
)

// Murmur3 is MurmurHash3 x86 32-bit of data with the given seed (the
// reference clients' hash, SPEC §6), computed by github.com/twmb/murmur3.
func Murmur3(data []byte, seed uint32) uint32 {
	return murmur3.SeedSum32(seed, data)
}

// Route maps a partition key to a shard index in [0, shardCount), exactly as
// the reference clients do (SPEC §6): MurmurHash3 x86 32 with rejection
// sampling so that every shard is equally likely. shardCount must be ≥ 1.
func Route(key string, shardCount uint32) uint32 {
	if shardCount <= 1 {
		return 0
	}
	const space = uint64(1) << 32
	limit := space - space%uint64(shardCount)
	var attemptBuf [4]byte
	for attempt := uint32(0); ; attempt++ {
		var seed uint32
		if attempt > 0 {
			// Each retry re-hashes the key with seed = murmur3(attempt as
			// 4 little-endian bytes, seed 0), as the reference clients do.
			binary.LittleEndian.PutUint32(attemptBuf[:], attempt)
			seed = murmur3.SeedSum32(0, attemptBuf[:])
		}
		h := murmur3.SeedStringSum32(seed, key)
		if uint64(h) < limit {
			return h % shardCount
		}
	}
}

// RedisSlot is the Redis Cluster hash slot of key: CRC16/XMODEM mod 16384,
// honouring a non-empty {hash tag} as Redis does.
func RedisSlot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(key) % 16384)
}

func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for b := 0; b < 8; b++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// StreamKey is the Redis key of one shard: "{streamPrefix}:{shardIndex}".
func StreamKey(streamPrefix string, shard int) string {
	return streamPrefix + ":" + strconv.Itoa(shard)
}

// StreamKeyPattern is the pattern producers fill in with a shard index.
func StreamKeyPattern(streamPrefix string) string {
	return streamPrefix + ":{shardIndex}"
}

// Routing builds the routing table for a stream of shardCount shards.
func Routing(streamPrefix, consumerGroup string, shardCount int, metadataVersion int64) ProducerRouting {
	shards := make([]RouteShard, shardCount)
	for i := range shards {
		key := StreamKey(streamPrefix, i)
		shards[i] = RouteShard{ShardIndex: i, StreamKey: key, RedisSlot: RedisSlot(key)}
	}
	return ProducerRouting{
		StreamPrefix:     streamPrefix,
		ConsumerGroup:    consumerGroup,
		MetadataVersion:  metadataVersion,
		ShardCount:       shardCount,
		StreamKeyPattern: StreamKeyPattern(streamPrefix),
		Shards:           shards,
	}
}
