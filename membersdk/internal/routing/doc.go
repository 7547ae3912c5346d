// Package routing is the producer's routing cache: the producer routing of
// one stream and group, fetched from the coordinator, kept while younger
// than a TTL and not invalidated, read without a lock by every publish and
// refreshed by one caller at a time.
//
// It may import the standard library and membersdk/protocol only.
package routing
