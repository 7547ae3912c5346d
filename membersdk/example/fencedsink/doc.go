// Package fencedsink is a runnable example of a sink that fences its own
// writes with membersdk.Message.FencingToken: it remembers the highest token
// seen per shard and refuses a writer holding an older one, so a member
// frozen past its lease (GC pause, SIGSTOP) cannot overwrite what the
// shard's new owner already wrote. See docs/MEMBER-SDK.md, "Fencing your own
// writes"; sink_test.go runs it against a real redis-server.
//
// It may import membersdk, go-redis and the standard library only.
package fencedsink
