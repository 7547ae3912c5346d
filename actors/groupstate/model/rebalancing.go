package model

import "time"

// Pause is an operator's freeze of a group's voluntary moves (Meta.Paused): who asked, why,
// and since when (zero: rebalancing is active). While it is set no live member is told to
// revoke a shard for another live member; shards nobody holds (an expired, fenced or departed
// member's, never assigned ones) are still granted. Resuming clears it and the members' next
// heartbeats rebalance as usual.
type Pause struct {
	RequestedBy string    `json:"requestedBy"`
	Reason      string    `json:"reason,omitempty"`
	Since       time.Time `json:"since"`
}

// MaxPauseText bounds Pause.RequestedBy and Pause.Reason in bytes (the HTTP edge checks the
// same limits before it asks): they are stored with the group's meta.
const MaxPauseText = 1024

// IsSet reports whether p is a pause (rebalancing frozen), as opposed to the zero Pause.
func (p Pause) IsSet() bool { return !p.Since.IsZero() }
