package persistence

import (
	"context"
	"time"
)

// Fences writes and reads shard fences: one Redis hash per (shard stream,
// consumer group) at protocol.FenceKey, beside the shard stream (in its
// Cluster slot) and never under the store's key prefix. A fence names the
// member allowed to acknowledge and claim on the shard for the group, with a
// token that strictly increases on every ownership change; members check both
// in their ack/claim scripts (docs/PROTOCOL.md, "Shard fence").
//
// The coordinator writes fences only when a shard's holder changes, and
// before the group state that makes the change (durable before told). It is
// implemented by the data-plane Provisioner.
type Fences interface {
	// SetFences applies every update: token+1 (never reset), owner, epoch
	// and the time of the change. Updates of different shards are
	// independent (each key is in its own slot): on error some may have
	// landed, which is safe (a fence only ever names a holder the
	// coordinator decided on, or nobody). An empty list writes nothing.
	// Errors wrap ErrUnavailable when the outcome is unknown.
	SetFences(ctx context.Context, streamPrefix, group string, updates []FenceUpdate) error
	// GetFences reads the fences of shards (one round trip), in the order
	// given; a fence never written reads as the zero Fence (Token 0).
	GetFences(ctx context.Context, streamPrefix, group string, shards []int) ([]Fence, error)
}

// FenceUpdate is one ownership change: Owner "" clears the fence (nobody may
// acknowledge on the shard).
type FenceUpdate struct {
	Shard int
	Owner string
	Epoch int64 // the owner's member epoch at the grant (informational)
	// Base is the token a fence that does not exist yet starts from (the write
	// makes it Base+1); 0 starts at 1. A group on a resharded stream passes
	// the token base of its metadata version, so that a fence it creates for a
	// shard index that had an earlier incarnation never goes below that
	// incarnation's tokens.
	Base int64
}

// Fence is the stored state of one fence.
type Fence struct {
	Owner string
	Token int64
	Epoch int64
	At    time.Time
}
