package fence

// SlotKey names a key in the slot of streamKey: "{streamKey}:name". A key
// so named shares the shard's hash slot on Redis Cluster whatever name is
// (protocol.RedisSlot), as the shard's fence does (protocol.FenceKey).
func SlotKey(streamKey, name string) string { return "{" + streamKey + "}:" + name }
