package protocol

import "strconv"

// DedupKey is the dedup record of an idempotent producer on one shard for
// one time bucket of its dedup window: a hash of idempotent id → entry id
// (docs/PROTOCOL.md, "Idempotent producer"). Its hash tag is the whole shard
// stream key, so the record and the stream share a Redis Cluster slot and
// one script checks the record and appends the entry atomically. producerID
// is percent-encoded as a fence key's group is.
func DedupKey(streamKey, producerID string, bucket int64) string {
	return "{" + streamKey + "}:idmp:" + escapeKeyPart(producerID) + ":" + strconv.FormatInt(bucket, 10)
}

// ProducerClaimKey is the key a live idempotent producer holds while it
// publishes under producerID to the stream prefix (a string: the
// producer's incarnation, with an expiry it renews): a second live producer
// with the same id is refused.
func ProducerClaimKey(streamPrefix, producerID string) string {
	return "{" + streamPrefix + "}:producer:" + escapeKeyPart(producerID)
}
