// Package driver runs the migrations whose rules package reshard holds: on
// every node a loop finds the streams marked as resharding, takes a
// stream's driver lease, runs the side effects of its migration's current
// step (provisioning, telling the groups their shard set, retiring drained
// shards, deleting fences) and records the step as done with a
// compare-and-set write of the stream record. Scale requests drive the
// preparing steps of their migration at once (Driver.DriveNow).
//
// What the driver needs from the node it runs on is one small interface,
// Node: the store and provisioner, whether the node refuses to serve, the
// node's id and owner name, a way to tell every group of a stream its shard
// set (the actor shell routes that to the group actors), a logger, metrics
// and a clock.
//
// # Imports
//
// The driver may import the standard library, reshard (the rules),
// persistence (the Store and Provisioner interfaces), coordinator (the
// service's error sentinels) and membersdk/protocol (the wire types: shard
// key names). It never imports protoactor, fiber, api/ or anything under
// actors/ (coordinator/imports_test.go checks it): the actor shell depends
// on the driver, not the other way round.
package driver
