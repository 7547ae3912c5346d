// Package identity holds the member identity rules: who may speak for a member id (its
// principal) and which process (its incarnation). The group rules (actors/groupstate,
// identity.go) check them before anything else and answer the refusals they decide.
//
// It imports only the standard library and groupstate/model, and does no I/O.
package identity
