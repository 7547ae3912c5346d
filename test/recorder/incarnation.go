package recorder

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Resharding retires shard streams (a scale-in renames `p:i` to its retired
// key) and a later scale-out may create `p:i` again: a new incarnation of
// shard i, with new entries, a new Redis consumer group and a fence whose
// token starts again from 1. The checks of this package compare lines per
// shard index, so lines of two incarnations must not share one: a token 1
// of the new incarnation after a token 9 of the old one is no overlap.
//
// Incarnations tells them apart from Redis itself: every retired key keeps
// its stream's last generated entry id, and the entries of an incarnation
// sort after every entry of the incarnations before it (Redis gives ids from
// its clock when the entry is written, and a shard index is created again
// only after its previous stream was retired).

// IncarnationStride separates the labels of a shard's incarnations: the
// live incarnation of shard s keeps label s; the i-th retired one (0 =
// oldest) gets s + (i+1)*IncarnationStride.
const IncarnationStride = 1_000_000

// Incarnations is, per shard index, the retired incarnations of a stream's
// shards, oldest first.
type Incarnations struct {
	Prefix string
	// Retired[s] are the retired keys of shard s, oldest first.
	Retired map[int][]string
	// lastIDs[s][i] is the last entry id generated in Retired[s][i].
	lastIDs map[int][]streamID
	// retiredAt[s][i] approximates when Retired[s][i] was retired (unix
	// ns), for lines without an entry id (events).
	retiredAt map[int][]int64
}

// ReadIncarnations builds the incarnations of prefix's shards from its
// migrations (any order, any group's view: every group shows the same) and
// reads each retired key's last generated id from Redis. A retired key that
// is gone (its retention expired) is an error: the lines cannot be told
// apart any more.
func ReadIncarnations(ctx context.Context, rdb redis.UniversalClient, prefix string, migrations []protocol.Migration) (*Incarnations, error) {
	ms := append([]protocol.Migration(nil), migrations...)
	sort.SliceStable(ms, func(i, j int) bool { return parseTime(ms[i].CreatedAt) < parseTime(ms[j].CreatedAt) })
	inc := &Incarnations{Prefix: prefix, Retired: map[int][]string{}, lastIDs: map[int][]streamID{}, retiredAt: map[int][]int64{}}
	seen := map[string]bool{}
	for _, m := range ms {
		at := parseTime(m.UpdatedAt)
		for _, sh := range m.Shards {
			if sh.RetiredKey == "" || seen[sh.RetiredKey] {
				continue
			}
			seen[sh.RetiredKey] = true
			info, err := rdb.XInfoStream(ctx, sh.RetiredKey).Result()
			if err != nil {
				return nil, fmt.Errorf("recorder: XINFO STREAM %s (shard %d retired by %s): %w", sh.RetiredKey, sh.ShardIndex, m.ReshardingID, err)
			}
			id, err := parseStreamID(info.LastGeneratedID)
			if err != nil {
				return nil, fmt.Errorf("recorder: %s: %w", sh.RetiredKey, err)
			}
			s := sh.ShardIndex
			inc.Retired[s] = append(inc.Retired[s], sh.RetiredKey)
			inc.lastIDs[s] = append(inc.lastIDs[s], id)
			inc.retiredAt[s] = append(inc.retiredAt[s], at)
		}
	}
	return inc, nil
}

// Label is the label of a line on shard s: its entry id (or, without one,
// its time) decides the incarnation.
func (inc *Incarnations) Label(s int, entryID string, at int64) int {
	if inc == nil || len(inc.lastIDs[s]) == 0 {
		return s
	}
	i := 0 // the incarnation: how many retired ones it comes after
	if id, err := parseStreamID(entryID); err == nil && entryID != "" {
		for _, last := range inc.lastIDs[s] {
			if id.after(last) {
				i++
			}
		}
	} else {
		for _, t := range inc.retiredAt[s] {
			if at > t {
				i++
			}
		}
	}
	if i >= len(inc.lastIDs[s]) {
		return s // after every retired one: the live incarnation
	}
	return s + (i+1)*IncarnationStride
}

// Relabel returns lines with every Shard replaced by its Label.
//
// A line with an entry id is labelled exactly by it. A shard event without
// one (SHARD_STARTED, SHARD_REVOKING, SHARD_RELEASED, ...) is labelled by
// the hold it belongs to: from a member's SHARD_STARTED on a shard to its
// SHARD_RELEASED of that shard (or the member's next start of it, after a
// kill), every event of the member on the shard gets one label — that of
// the first entry the member handled in the hold, or, when it handled none,
// the start's time. Time alone cannot label a release: a scale-in retires a
// shard's stream while its member still holds it (the groups revoke the
// shard only after it is retired), so the release of the old incarnation
// comes after the retirement, and by its time would read as the next one's.
func (inc *Incarnations) Relabel(lines []Line) []Line {
	out := make([]Line, len(lines))
	copy(out, lines)
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return out[order[a]].At < out[order[b]].At })

	type holdKey struct {
		member string
		shard  int
	}
	type hold struct {
		events []int // indexes into out
		label  int
		known  bool
		start  int64
	}
	open := map[holdKey]*hold{}
	closeHold := func(h *hold, s int) {
		label := h.label
		if !h.known {
			label = inc.Label(s, "", h.start)
		}
		for _, i := range h.events {
			out[i].Shard = label
		}
	}
	for _, i := range order {
		l := lines[i]
		if l.Shard < 0 {
			continue
		}
		k := holdKey{l.Member, l.Shard}
		if l.EntryID != "" {
			out[i].Shard = inc.Label(l.Shard, l.EntryID, l.At)
			if h := open[k]; h != nil && !h.known && l.Kind == "handled" {
				h.label, h.known = out[i].Shard, true
			}
			continue
		}
		if l.Kind != "event" {
			out[i].Shard = inc.Label(l.Shard, "", l.At)
			continue
		}
		switch h := open[k]; {
		case l.Event == "SHARD_STARTED":
			if h != nil {
				closeHold(h, l.Shard) // its process ended without a release
			}
			open[k] = &hold{events: []int{i}, start: l.At}
		case h != nil:
			h.events = append(h.events, i)
			if l.Event == "SHARD_RELEASED" {
				closeHold(h, l.Shard)
				delete(open, k)
			}
		default: // no start seen: its time is all there is
			out[i].Shard = inc.Label(l.Shard, "", l.At)
		}
	}
	for k, h := range open {
		closeHold(h, k.shard)
	}
	return out
}

// Key is the stream key holding the entries of the incarnation label names:
// the live key for the live one, the retired key for an earlier one.
func (inc *Incarnations) Key(label int) string {
	s, i := label%IncarnationStride, label/IncarnationStride
	if i == 0 || inc == nil {
		return protocol.StreamKey(inc.prefix(), s)
	}
	if i-1 < len(inc.Retired[s]) {
		return inc.Retired[s][i-1]
	}
	return protocol.StreamKey(inc.prefix(), s)
}

func (inc *Incarnations) prefix() string {
	if inc == nil {
		return ""
	}
	return inc.Prefix
}

// SettleIncarnations is Settle across incarnations: an entry handled but
// never seen acknowledged counts as processed when its stream (live or
// retired, per inc) shows it no longer pending. lines must be labelled by
// inc (Relabel) like the recorder's own lines.
func (r *Recorder) SettleIncarnations(ctx context.Context, rdb redis.UniversalClient, inc *Incarnations, group string) (int, error) {
	acked := r.AckedSeqs()
	settled := 0
	seen := map[int64]bool{}
	for _, l := range r.Lines() {
		if l.Kind != "handled" || acked[l.Seq] || seen[l.Seq] {
			continue
		}
		seen[l.Seq] = true
		key := inc.Key(l.Shard)
		pending, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: key, Group: group, Start: l.EntryID, End: l.EntryID, Count: 1}).Result()
		if err != nil {
			return settled, fmt.Errorf("XPENDING %s %s: %w", key, l.EntryID, err)
		}
		if len(pending) == 0 {
			r.mu.Lock()
			r.settled[l.Seq] = true
			r.mu.Unlock()
			settled++
		}
	}
	return settled, nil
}

type streamID struct{ ms, seq uint64 }

func (a streamID) after(b streamID) bool { return a.ms > b.ms || a.ms == b.ms && a.seq > b.seq }

func parseStreamID(s string) (streamID, error) {
	msPart, seqPart, ok := strings.Cut(s, "-")
	if !ok {
		return streamID{}, fmt.Errorf("stream id %q", s)
	}
	ms, err := strconv.ParseUint(msPart, 10, 64)
	if err != nil {
		return streamID{}, fmt.Errorf("stream id %q: %w", s, err)
	}
	seq, err := strconv.ParseUint(seqPart, 10, 64)
	if err != nil {
		return streamID{}, fmt.Errorf("stream id %q: %w", s, err)
	}
	return streamID{ms, seq}, nil
}

// parseTime reads an RFC 3339 time as unix ns (0 when unreadable).
func parseTime(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixNano()
}
