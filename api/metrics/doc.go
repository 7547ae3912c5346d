// Package metrics holds the coordinator's Prometheus metrics on a registry of
// its own (never the global default registry), so that tests and embedding
// programs do not collide.
//
// One process-wide instance, Default, is what the HTTP server serves on
// /metrics and what cmd/coordinator hands to the actors. Every method
// is safe for concurrent use, and every method of a nil *Metrics is a no-op,
// so code under test may pass nil.
//
// Who records what:
//
//	api/ (the HTTP front) and mailbox/ (the Redis mailbox), each for its transport:
//	  rsc_http_requests_total{route,method,code}      counter (api/ only)
//	  rsc_http_request_duration_seconds{route}         histogram (api/ only)
//	  rsc_heartbeats_total{transport,status}           counter, status = protocol status,
//	                                                   or REJECTED (4xx at the edge) / ERROR (5xx)
//	  rsc_heartbeat_duration_seconds{transport}        histogram, whole handler
//
//	actors/ (group and member actors), through group.Deps.Metrics and the
//	host's options, which cmd/coordinator maps to these methods:
//	  PersistDuration(seconds)  rsc_persist_duration_seconds  one successful or failed store write
//	  PersistError()            rsc_persist_errors_total      a store write that failed
//	  SetGroupsActive(n)        rsc_groups_active             group activations on this node
//	  MembersByState(p, g, m)   rsc_members{stream_prefix,consumer_group,state}
//	                            m maps state (STARTING, ACTIVE, LEAVING, EXPIRED, FENCED)
//	                            to count; states absent from m are set to 0
//	  ForgetGroup(p, g)         drops a group's rsc_members series (group deleted or moved away)
//	  LeaseExpired()            rsc_lease_expirations_total
//	  MemberFenced()            rsc_members_fenced_total
//
//	actors/group, through the optional groupdeps.FenceMetrics of its Deps.Metrics:
//	  FenceWrites(set, clear)   rsc_shard_fence_writes_total{op=set|clear}  one per shard fence written
//
// Go runtime and process collectors are registered too.
package metrics
