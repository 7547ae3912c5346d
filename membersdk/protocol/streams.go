package protocol

// StreamView is one stream as GET /coord/v1/streams and
// GET /coord/v1/streams/{p} show it.
type StreamView struct {
	StreamPrefix string `json:"streamPrefix"`
	// ShardCount is the routing count (what producers hash onto).
	ShardCount int `json:"shardCount"`
	// ConsumedShardCount is how many shard streams exist and are assigned:
	// more than ShardCount while a scale-in's removed shards drain.
	ConsumedShardCount int        `json:"consumedShardCount"`
	MetadataVersion    int64      `json:"metadataVersion"`
	StreamKeyPattern   string     `json:"streamKeyPattern"`
	CreatedAt          string     `json:"createdAt"`
	UpdatedAt          string     `json:"updatedAt"`
	CreatedBy          string     `json:"createdBy"`
	Reason             string     `json:"reason,omitempty"`
	ActiveMigration    *Migration `json:"activeMigration"`
	// Groups lists the stream's consumer groups (describe only).
	Groups []string `json:"groups,omitempty"`
}

// StreamsResponse lists streams.
type StreamsResponse struct {
	Streams []StreamView `json:"streams"`
}
