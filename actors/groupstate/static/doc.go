// Package static holds the pure parts of static membership (KIP-848) for the group rules
// (actors/groupstate): the instanceId index, the record transforms of a temporary leave, a
// hand-back and the end of a hold, and the texts of their answers. It imports the standard
// library, groupstate/model and groupstate/shardset only; actors/groupstate decides when each
// applies (groupstate/static.go).
//
// The rules, as docs/PROTOCOL.md "Static membership" states them:
//
//   - One live claim. A join carrying an instanceId that a live member (STARTING or ACTIVE)
//     other than the joiner holds is refused UNRELEASED_INSTANCE_ID and changes nothing.
//   - Temporary leave (memberEpoch -2): every shard not reported DRAINING or REVOKING is free at
//     once, but the member stays in the target (nobody else is given its shards, the group
//     epoch does not move) until SessionDeadline, which is also its lease deadline. Past it the
//     member expires like any member; one still draining becomes LEAVING instead.
//   - Hand-back. A join with the same instanceId while the member is away takes its record
//     over (a new memberId gets a new record with the old one's state and target; the old
//     one is deleted, or becomes LEAVING holding what it still drains). No other target moves;
//     each shard is granted once nobody holds it, so the shard fences move to the new id.
//   - A -2 that cannot be held is handled as a leave (-1); a crash is a lease expiry.
package static
