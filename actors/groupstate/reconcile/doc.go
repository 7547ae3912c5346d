// Package reconcile holds the pure steps that reconcile one member with its target (Settle:
// revocations and the member epoch; Grant: free target shards) and the move cap that limits
// how many revocations a group starts at once (movecap.go). The group rules
// (actors/groupstate) call them inside an evaluation. It imports only the standard library,
// groupstate/model and groupstate/shardset, and does no I/O.
package reconcile
