package protocol

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
)

// Murmur3 is MurmurHash3 x86 32-bit of data with the given seed.
func Murmur3(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data)
	for len(data) >= 4 {
		k := binary.LittleEndian.Uint32(data)
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
		data = data[4:]
	}
	var k uint32
	switch len(data) {
	case 3:
		k ^= uint32(data[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
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
	data := []byte(key)
	var attemptBuf [4]byte
	for attempt := uint32(0); ; attempt++ {
		var seed uint32
		if attempt > 0 {
			binary.LittleEndian.PutUint32(attemptBuf[:], attempt)
			seed = Murmur3(attemptBuf[:], 0)
		}
		h := Murmur3(data, seed)
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
