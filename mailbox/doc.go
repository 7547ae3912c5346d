// Package mailbox is the coordinator's second heartbeat transport, the Redis
// mailbox (docs/PROTOCOL.md, "Redis mailbox"): members XADD protocol-v1
// heartbeat bodies to their principal's request stream
// (<prefix>:{mb:<principal>}:requests) and BLPOP the answer from their own
// reply list (<prefix>:{mb:<principal>}:reply:<stream>|<group>|<memberId>).
//
// A Reader runs on every coordinator node. It reads every configured
// principal's request stream with one blocking XREADGROUP … NOACK (consumer
// group "coordinator", consumer = the node id): O(1) blocking reads per node
// at idle on a standalone Redis, one per principal on Redis Cluster (each
// principal's keys live in their own slot). Each entry is handled exactly as
// api/ handles POST …/heartbeat: the same body limit, names
// (protocol.ValidateName/ValidateMemberID), decoder (protocol.DecodeHeartbeat),
// checks (coordinator.CheckHeartbeat), authorization (authz: the principal is
// the one whose key the entry was read from), Service call
// (coordinator.Members.Heartbeat, routed to the group's host node) and
// error answers (coordinator.AnswerFor). The answer — the HTTP status and
// the exact HTTP response body — is pushed to the member's reply list by one
// script (LPUSH + LTRIM + PEXPIRE). Requests whose member stopped waiting
// (entry id time + timeout before the Redis clock) are dropped and counted.
//
// A Nudger (nudge.go) pushes unprompted {"v":1,"kind":"nudge"} elements to
// the reply lists of mailbox members the group actors name
// (actors/groupstate/nudge.go decides whom; docs/PROTOCOL.md, "Nudges"),
// with the same script, from a bounded queue that never blocks the caller.
// It implements actors/group/groupdeps.Nudger with plain strings, so this
// package still imports nothing from actors/.
//
// # What this package may import
//
// The standard library, coordinator/, authz/, config/, membersdk/protocol and
// go-redis. Never fiber (or another transport), never protoactor, never
// actors/ or api/ (TestMailboxImports).
package mailbox
