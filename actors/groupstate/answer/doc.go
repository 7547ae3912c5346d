// Package answer holds what is decided about a heartbeat without a group's state: the
// heartbeat's contract (Validate, Precheck), the answer every group gives a request it rejects
// (Reject), the answer to a heartbeat no group evaluated (Unevaluated, with the Cause the shell
// observed), the answer for a group the store does not have (UnknownGroup) and the one shape
// of an answer that grants nothing (Empty).
//
// It is a package of its own, not a file of the rules, because it has users of its own: the
// service layer (actors/service) answers heartbeats that never reach a group actor — a group
// that does not exist yet or is being created, a node that cannot reach the store or is
// refusing — and imports this and groupstate/model, not the state machine; the group actor
// (actors/group) answers with the same causes what it could not evaluate. The rules use it
// for the contract every evaluation starts from. It imports the standard library,
// groupstate/model and groupstate/shardset only.
package answer
