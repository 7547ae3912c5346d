// Command streamctl is the operator CLI of the Redis Stream Coordinator. It
// speaks the coordinator's HTTP API and prints human tables (or the API's
// JSON with -o json).
//
//	streamctl [--url URL] [--user U --password P | --token T] [-o table|json] COMMAND ARGS
//
//	login                                     get a token, store it in the config file
//	health                                    readiness; exits 1 when the coordinator is DOWN
//	streams create|list|describe|delete       streams (list/describe derive from groups)
//	groups create|list|describe|delete        consumer groups
//	members | assignments | consumption | offsets PREFIX GROUP
//	messages PREFIX SHARD [--from ID] [--count N]
//	scale PREFIX COUNT                        start resharding
//	migrations PREFIX GROUP | migration PREFIX GROUP ID | rollback PREFIX GROUP ID
//	watch PREFIX GROUP                        live shard table, redrawn in place
//	routing PREFIX GROUP [KEY...]             routing table, or the shard of each key
//	debug [PREFIX GROUP]                      live actor state on the node answering
//
// Settings come from flags, then STREAMCTL_URL, STREAMCTL_USER,
// STREAMCTL_PASSWORD, STREAMCTL_TOKEN (the RSC_* names of earlier releases
// still work, with a warning), then the config file
// (~/.config/streamctl/config.yaml, or --config / STREAMCTL_CONFIG; never
// RSC_CONFIG, the coordinator's). Exit codes: 0 ok, 1 failure, 2 usage,
// 3 not found.
//
// It speaks to the coordinator over HTTP only: it may import membersdk/protocol, its own internal packages, cobra and the standard library — never config, api or actors (its names and file are its own).
package main
