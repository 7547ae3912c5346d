// Package invariants holds the checks of a group's records that the rules (actors/groupstate)
// must keep (doc.go there lists them): it recomputes every derived fact from the Meta and the
// member records and names each violation. It imports the standard library, groupstate/model
// and groupstate/shardset only; groupstate checks its own indexes against the Tally.
package invariants
