// Package reshard holds the rules of resharding a stream: the migration
// record, the plan of steps a scale-out, a scale-in or a rollback goes
// through, and which public state (PREPARING, ACTIVE, DRAINING, DEPRECATED,
// ROLLING_BACK, ROLLED_BACK) each step shows. It imports only the standard
// library and does no I/O; time is always an argument.
//
// # Layout
//
// A stream has two shard counts. The routing count (the stream record's
// ShardCount) is what producers hash keys onto. The consuming count
// (Layout.Consume) is how many shard streams exist and are assigned to
// members: it is larger than the routing count while removed shards drain.
// Both only change through a step that also bumps the stream's
// metadataVersion, so a group can always tell a newer layout from an older
// one.
//
// # The routing grace
//
// Producers may route with a count they cached before a routing change
// until the stream's last routing change (Layout.RoutingChangedAt) plus
// the grace. Only retiring a shard can lose such a write, so a grace step
// comes right before every retire step and nowhere else: a scale-out ends
// as soon as its shards exist, routing is switched and every group stored
// its shard set.
//
// # Contract with the driver (reshard/driver)
//
// A migration is a list of steps. The driver runs the side effects of the
// current step (Step), which are idempotent — provisioning, telling groups
// their new shard set, retiring a drained shard with one atomic script,
// deleting fences — and then records the step as done (Layout.Complete)
// with a compare-and-set write of the stream record. Any node may crash
// between the two: the next driver runs the same step again. A rollback
// (Layout.Rollback) replaces the steps not yet done; an API node records it
// with the same compare-and-set, so a driver that ran side effects of a
// replaced step learns it on its next write and reloads.
//
// Nothing is lost: a shard leaves the consuming set only after it was
// retired, and it is retired only by a script that, atomically with the
// rename, checks that every consumer group on it has nothing pending and
// nothing undelivered. A retired shard that a rollback needs again is
// created anew, empty (its entries were all delivered and acknowledged).
package reshard
