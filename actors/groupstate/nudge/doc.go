// Package nudge holds the reading of a change that groupstate.Nudges decides with: which shards
// it frees and whose assignment it lets grow at once (docs/PROTOCOL.md, "Nudges").
//
// It imports only the standard library and groupstate's model and shardset.
package nudge
