package model

import "time"

// Instant is a point in time in 8 bytes instead of time.Time's 24: the member record keeps its
// three volatile timestamps (last heartbeat, lease and revoke deadlines) as Instants because a
// node keeps one record per member (docs/BENCHMARKS.md, "Memory per member"). The zero Instant
// is the zero time.
//
// An Instant counts nanoseconds from a reading of this process's clock taken when it started,
// so that it gives back a time that compares as the one it was made from: a time with a
// monotonic clock reading (time.Now) keeps comparing on the monotonic clock, one without
// (a test's clock, a decoded time) on the wall clock. Instants are never persisted.
type Instant int64

// origin is what Instants count from (a clock reading, not a decision input: any value works).
var origin = time.Now()

// InstantOf returns t as an Instant (the zero time as the zero Instant). Times more than
// 292 years from the process's start are clamped there.
func InstantOf(t time.Time) Instant {
	if t.IsZero() {
		return 0
	}
	d := t.Sub(origin)
	if d >= 0 && d < 1<<63-1 {
		d++ // 0 is the zero time; non-negative offsets are kept one up
	}
	return Instant(d)
}

// Time returns the time i was made from (the zero time for the zero Instant).
func (i Instant) Time() time.Time {
	switch {
	case i == 0:
		return time.Time{}
	case i > 0:
		return origin.Add(time.Duration(i - 1))
	default:
		return origin.Add(time.Duration(i))
	}
}

// IsZero reports whether i is the zero time.
func (i Instant) IsZero() bool { return i == 0 }

// Before, After, Equal and Sub are time.Time's, on i.Time().
func (i Instant) Before(u time.Time) bool       { return i.Time().Before(u) }
func (i Instant) After(u time.Time) bool        { return i.Time().After(u) }
func (i Instant) Equal(u time.Time) bool        { return i.Time().Equal(u) }
func (i Instant) Sub(u time.Time) time.Duration { return i.Time().Sub(u) }
