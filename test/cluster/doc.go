// Package cluster tests N coordinator processes running as one automanaged
// actor host cluster on loopback (issue 11, points 4, 6, 7 and 9): a real
// redis-server, three coordinator processes, and simulated members
// (harness.FailoverMember) spread over every node's URL that fail over to
// another node on a transport error or RETRY. mailbox_test.go runs SDK
// member processes on the Redis mailbox instead (issue 22 point 4), judged
// by what they recorded (test/recorder).
//
// Its oracle (oracle.go) judges the cluster by what members were told:
// from every heartbeat exchange it derives when each member may read each
// shard, and checks that no shard was readable by two members at once,
// that no epoch went backwards, and for how long a shard had no reader.
package cluster
