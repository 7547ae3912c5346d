// Package answer holds what the group rules (actors/groupstate) decide without a group's state:
// the heartbeat's contract (Validate, Precheck), the answer every group gives a request it
// rejects (Reject), the answer to a heartbeat a shell could not have evaluated (Unevaluated,
// with the Cause the shell observed) and the one shape of an answer that grants nothing
// (Empty). It imports the standard library, groupstate/model and groupstate/shardset only.
package answer
