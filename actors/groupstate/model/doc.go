// Package model holds the vocabulary the group rules (actors/groupstate) speak: a group's
// Config, the decoded heartbeat, its Response and statuses, and the durable Member and Meta
// records with their states. It holds data and the facts of a single record, no decisions; it
// imports only the standard library and does no I/O. Callers import it directly.
package model
