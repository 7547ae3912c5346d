// Package shard holds the building blocks of the consumer's shard worker
// that need nothing of the consumer: the ownership token and the member-wide
// self-fence gate every XACK is checked against (Ownership, Gate), the
// blocking XREADGROUP on a connection of its own that CLIENT UNBLOCK can end
// (Reader), the set of acknowledgements whose outcome is unknown
// (Unconfirmed).
//
// It may import the standard library, go-redis and membersdk/internal/fence
// only.
package shard
