// Package model holds the vocabulary the group rules (actors/groupstate) speak: a group's
// Config, the decoded heartbeat, its Response and statuses, and the durable Member and Meta
// records with their states. It holds data and the facts of a single record, no decisions; it
// imports only the standard library and does no I/O.
//
// It is a package of its own because it is the vocabulary shared with every shell: the
// transports decode into it, the store persists its records, the service layer and the
// console read it — about twenty packages, most of which have no business with the state
// machine. Callers import it directly.
package model
