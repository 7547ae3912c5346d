package membersdk

// Heartbeat transports (ConsumerConfig.Transport).
const (
	// TransportHTTP: heartbeats are POSTed to the coordinator's HTTP API
	// (CoordinatorURLs, with failover). The default.
	TransportHTTP = "http"
	// TransportRedis: heartbeats go through the Redis mailbox
	// (docs/PROTOCOL.md, "Redis mailbox") on the data-plane Redis client;
	// the coordinator's HTTP port need not be reachable.
	TransportRedis = "redis"
)
