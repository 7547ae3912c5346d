// Package clusterbench measures the actor host cluster as a whole: heartbeat
// throughput with 1, 2 and 3 coordinator processes on this machine (same
// run, reported as ratios to one node), and the cost of forwarding a
// heartbeat to the node that hosts its group against a plain loopback round
// trip. Real redis-server, real coordinator processes forming an
// automanaged cluster on loopback, members simulated over HTTP by the test
// process. `make bench-cluster` runs it; it never runs in `make test`.
package clusterbench
