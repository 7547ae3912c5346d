package fence

import "strings"

// Slot is the Redis Cluster hash slot of key (0…16383): CRC16 (XMODEM) of
// the key, or of its hash tag — the part between the first '{' and the
// next '}', when that part is not empty — modulo 16384.
func Slot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(key) % 16384)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial 0), Redis Cluster's.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// SlotKey names a key in the slot of streamKey: "{streamKey}:name". A key
// so named shares the shard's hash slot on Redis Cluster whatever name is,
// as the shard's fence does (protocol.FenceKey).
func SlotKey(streamKey, name string) string { return "{" + streamKey + "}:" + name }
