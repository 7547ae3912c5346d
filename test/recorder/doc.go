// Package recorder reads what member processes report about the entries they
// handle and checks the data-plane guarantees: nothing produced is lost, and
// no shard is processed by two members at once.
//
// A member process writes one JSON object per line on stdout (see Line). The
// checker works on acknowledgements: an entry is processed once a member
// acknowledged it, and a member's "processing window" on a shard is the time
// between its first and last acknowledgement on that shard at one member
// epoch. Windows of two members on the same shard must not overlap.
//
// It may import membersdk/protocol, go-redis and the standard library.
package recorder
