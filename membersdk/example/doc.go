// Command example runs one or more member-SDK consumers (and optionally a
// producer) against a coordinator and logs what they handle.
//
//	cd membersdk   # the SDK's own module
//	go run ./example -coordinator http://127.0.0.1:8080 \
//	    -redis 127.0.0.1:6379 -stream orders -group workers -members 2 -produce 100
//
// -member-id names the member (two processes on one host need different
// ones); -produce-rate 100 publishes 100 entries/s over -keys partition keys
// until stopped; several -redis addresses (repeated or comma-separated), or
// -redis-cluster, connect to a Redis Cluster; -redis-master-name mymaster
// with -redis-sentinel host:26379 (all Sentinels) finds the primary through
// Redis Sentinel and follows its failovers. Redis passwords come from
// REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD. -transport redis makes the
// members heartbeat through the Redis mailbox (the coordinator runs with
// mailbox.enabled; -mailbox-principal names the auth user, "-" without member
// authentication); the producer still routes over HTTP.
//
// Stop it with Ctrl-C: the members drain and leave the group gracefully.
//
// It may import membersdk, go-redis and the standard library only: it is the
// program an application would write.
package main
