// Command barefiber is the baseline of the heartbeat CPU benchmark
// (test/sysbench): a bare fiber app whose heartbeat route decodes the same
// JSON body with encoding/json and encodes a response of the same shape with
// fiber's JSON encoder (encoding/json), and does nothing else — no
// validation, no actor, no state. What the coordinator spends beyond it per
// heartbeat is the cost of being a coordinator.
//
// It may import fiber, membersdk/protocol and the standard library — nothing of the coordinator (it is the baseline).
package main
