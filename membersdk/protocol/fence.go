package protocol

// FenceKey is the Redis key of the shard fence of (streamKey, group): a hash
// with the fields owner, token, epoch and at (docs/PROTOCOL.md, "Shard
// fence"). Its hash tag is the whole shard stream key, so the fence and the
// stream share a Redis Cluster slot and one script can check the fence and
// touch the stream atomically. streamKey is the real stream key ("orders:3")
// and is not escaped; group is percent-encoded (every byte outside
// [A-Za-z0-9._:-] as %XX, upper-case hex), the same encoding the Redis store
// uses for names in its keys.
//
// The coordinator writes the fence; members (the SDK, or any client that
// adopts the fence) read it and check it in their ack/claim scripts.
func FenceKey(streamKey, group string) string {
	return "{" + streamKey + "}:fence:" + escapeKeyPart(group)
}

func fenceSafe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '_' || c == '-' || c == ':'
}

// escapeKeyPart percent-encodes every byte outside [A-Za-z0-9._:-].
func escapeKeyPart(s string) string {
	const hex = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if fenceSafe(c) {
			if b != nil {
				b = append(b, c)
			}
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, len(s)+8), s[:i]...)
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	if b == nil {
		return s
	}
	return string(b)
}
