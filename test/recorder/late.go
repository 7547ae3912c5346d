package recorder

import "sort"

// WithoutLateConfirmations returns lines sorted by time without the ACKED
// records that confirm, when a shard worker starts, an XACK sent earlier
// whose reply was lost (membersdk confirmAcks), and how many it dropped.
// Such a record carries the epoch the entry was read at, older than the one
// the member's current worker for that shard started at, and the time of
// the confirmation, not of the XACK: it counts for loss, but not for ack
// windows. A live acknowledgement always carries an epoch at least the
// worker's start epoch.
func WithoutLateConfirmations(lines []Line) ([]Line, int) {
	sorted := append([]Line(nil), lines...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].At < sorted[j].At })
	type ms struct {
		member string
		shard  int
	}
	started := map[ms]int64{}
	out := make([]Line, 0, len(sorted))
	late := 0
	for _, l := range sorted {
		switch {
		case l.Kind == "event" && l.Event == "SHARD_STARTED":
			started[ms{l.Member, l.Shard}] = l.Epoch
		case l.Kind == "acked":
			if e, ok := started[ms{l.Member, l.Shard}]; ok && l.Epoch < e {
				late++
				continue
			}
		}
		out = append(out, l)
	}
	return out, late
}

// FromLines returns a recorder holding lines.
func FromLines(lines []Line) *Recorder {
	r := New()
	for _, l := range lines {
		r.Add(l)
	}
	return r
}
