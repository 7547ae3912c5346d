package model

import (
	"encoding/json"
	"strings"
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

// The member record's volatile timestamps are 8 bytes each and its rarely set session deadline
// a pointer: the record is 320 bytes, one 320-byte allocation per member instead of 384
// (docs/BENCHMARKS.md, "Memory per member"). A new field must not push it into the next size
// class.
func TestMemberRecordSize(t *testing.T) {
	if s := unsafe.Sizeof(Member{}); s > 320 {
		t.Fatalf("model.Member is %d bytes, want ≤ 320 (two size classes below the 384 it was)", s)
	}
}

// The session deadline is stored as it was while it was a time.Time (omitted when unset), and a
// record read back keeps it.
func TestMemberSessionDeadlineJSON(t *testing.T) {
	var m Member
	b, err := json.Marshal(&m)
	if err != nil || strings.Contains(string(b), "sessionDeadline") {
		t.Fatalf("unset session deadline written: %s %v", b, err)
	}
	at := time.Date(2026, 12, 2, 15, 4, 5, 6, time.UTC)
	m.SetSessionDeadline(at)
	if b, err = json.Marshal(&m); err != nil || !strings.Contains(string(b), `"sessionDeadline":"2026-12-02T15:04:05.000000006Z"`) {
		t.Fatalf("session deadline not written as a time: %s %v", b, err)
	}
	var back Member
	if err := json.Unmarshal(b, &back); err != nil || !back.SessionDeadline().Equal(at) {
		t.Fatalf("read back %v, want %v (%v)", back.SessionDeadline(), at, err)
	}
	c := back
	c.SetSessionDeadline(time.Time{})
	if !back.SessionDeadline().Equal(at) || !c.SessionDeadline().IsZero() {
		t.Fatal("clearing a copy's session deadline changed the original")
	}
}
