// Package capacity holds the pure facts of capacity-weighted assignment over member records
// (the group rules, actors/groupstate, decide when to use them: capacity.go there): the
// targets of the members taking part in either assignment mode, their weights, and which of
// them drifted from their share. It imports only the standard library, groupstate/model and
// groupstate/assign, and does no I/O.
package capacity
