package model

import (
	"testing"
	"time"
	"unsafe"
)

// An Instant gives back the time it was made from, compared as before: on the monotonic clock
// for a time.Now reading, on the wall clock for a test clock's or a decoded time.
func TestInstantGivesBackItsTime(t *testing.T) {
	if InstantOf(time.Time{}) != 0 || !Instant(0).Time().IsZero() || !Instant(0).IsZero() {
		t.Fatal("the zero time and the zero Instant must map to each other")
	}
	now := time.Now()
	wall := time.Date(2026, 12, 2, 11, 0, 0, 123456789, time.UTC)
	for _, at := range []time.Time{now, now.Add(15 * time.Second), now.Add(-time.Hour), origin, wall, wall.AddDate(-30, 0, 0), wall.AddDate(30, 0, 0)} {
		i := InstantOf(at)
		if i == 0 || !i.Time().Equal(at) || !i.Equal(at) || i.Sub(at) != 0 {
			t.Fatalf("%v: got back %v (Instant %d)", at, i.Time(), int64(i))
		}
		if !i.Before(at.Add(time.Nanosecond)) || !i.After(at.Add(-time.Nanosecond)) || i.Before(at) || i.After(at) {
			t.Fatalf("%v: Before/After disagree with the time it was made from", at)
		}
	}
	if InstantOf(now.Add(time.Nanosecond)) <= InstantOf(now) {
		t.Fatal("Instants keep the order of their times")
	}
}

// The member record's volatile timestamps are 8 bytes each: the record (336 bytes with the
// transport field) is one 352-byte allocation per member instead of 384 (docs/BENCHMARKS.md,
// "Memory per member"). A new field must not push it into the next size class.
func TestMemberRecordSize(t *testing.T) {
	if s := unsafe.Sizeof(Member{}); s > 352 {
		t.Fatalf("model.Member is %d bytes, want ≤ 352 (one size class below the 384 it was)", s)
	}
}
