// Package interval holds the heartbeat interval hint: how soon a member is told to come back
// (docs/PROTOCOL.md). The group rules (actors/groupstate) call it when they answer a
// heartbeat; the overdue marks that also shorten it stay with the group (groupstate, overdue.go).
//
// It imports only the standard library and groupstate/model, and does no I/O.
package interval
