// Package dispatch holds the dispatcher every group and member actor of the process runs on
// (Workers): mailboxes run on long-lived workers instead of a fresh goroutine per run. It
// imports only the standard library.
package dispatch
