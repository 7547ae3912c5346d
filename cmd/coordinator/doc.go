// Command coordinator runs one Redis Stream Coordinator node: the actor host
// with a group actor per consumer group, the fiber HTTP front and the Redis
// persistence plugin.
//
//	coordinator --config FILE [--http.addr HOST:PORT] [--redis.addrs A,B] …
//
// Configuration: defaults → YAML file → RSC_* environment → flags
// (docs/OPERATIONS.md). Exit status 2 means the configuration is invalid.
//
// It is wiring only and may import every package of this module.
package main
