package recorder

import (
	"bufio"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Line is one record written by a member process.
type Line struct {
	Kind    string `json:"k"`            // "handled", "acked", "refused", "event"
	Member  string `json:"m"`            // member id
	Shard   int    `json:"s"`            // shard index (-1 for member events)
	Epoch   int64  `json:"e"`            // member epoch
	EntryID string `json:"id,omitempty"` // stream entry id
	Seq     int64  `json:"q,omitempty"`  // producer sequence number carried by the entry
	At      int64  `json:"t"`            // unix nanoseconds
	Event   string `json:"ev,omitempty"` // event type for Kind "event"
	Shards  []int  `json:"ss,omitempty"` // assignment for ASSIGNMENT events
	// Token is, for "acked", the shard fencing token the member held
	// (membersdk.Message.FencingToken); 0 = unfenced or not recorded (older
	// member processes).
	Token int64 `json:"ft,omitempty"`
}

// Recorder collects lines from any number of member processes.
type Recorder struct {
	mu    sync.Mutex
	lines []Line
	seqOf map[string]int64 // streamKey-less entry key "shard/id" → seq
	// settled holds seqs found acknowledged in Redis by Settle.
	settled map[int64]bool
	// finalTokens holds each shard's final fence token, read by ReadFences
	// (nil until then).
	finalTokens map[int]int64
}

// New returns an empty recorder.
func New() *Recorder { return &Recorder{seqOf: map[string]int64{}, settled: map[int64]bool{}} }

// Read consumes r until EOF, adding every well-formed line; other lines go
// to passthrough (if not nil).
func (r *Recorder) Read(rd io.Reader, passthrough func(string)) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.Kind == "" {
			if passthrough != nil {
				passthrough(sc.Text())
			}
			continue
		}
		r.Add(l)
	}
}

// Add records one line.
func (r *Recorder) Add(l Line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, l)
	if l.Kind == "handled" {
		r.seqOf[entryKey(l.Shard, l.EntryID)] = l.Seq
	}
}

func entryKey(shard int, id string) string { return strconv.Itoa(shard) + "/" + id }

// Lines returns a copy of everything recorded.
func (r *Recorder) Lines() []Line {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Line(nil), r.lines...)
}

// AckedSeqs returns the set of producer sequence numbers acknowledged so far
// (reported by a member, or found acknowledged in Redis by Settle).
func (r *Recorder) AckedSeqs() map[int64]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[int64]bool{}
	for seq := range r.settled {
		out[seq] = true
	}
	for _, l := range r.lines {
		if l.Kind == "acked" {
			if seq, ok := r.seqOf[entryKey(l.Shard, l.EntryID)]; ok {
				out[seq] = true
			}
		}
	}
	return out
}

// Report is the outcome of a check.
type Report struct {
	Produced   int      `json:"produced"`
	Processed  int      `json:"processed"`  // distinct produced entries acknowledged
	Lost       int      `json:"lost"`       // produced, never acknowledged
	Duplicates int      `json:"duplicates"` // handler runs beyond the first, per entry
	Overlaps   []string `json:"overlaps"`   // two members acknowledging on one shard at once
	HandOffs   int      `json:"handOffs"`   // changes of the acknowledging member per shard
	LostSeqs   []int64  `json:"lostSeqs,omitempty"`
	// FenceOverlaps are double-processing windows found in the fence
	// history (fence.go): a token acknowledged with by two members, a
	// member acknowledging with a token older than one another member
	// already used, or a token above the shard's final fence token.
	FenceOverlaps []string `json:"fenceOverlaps"`
	// FencedAcks counts acknowledgements that carried a fencing token (> 0):
	// how much the fence check measured.
	FencedAcks int `json:"fencedAcks"`
}

// Check compares what was produced (sequence numbers 1..produced) with what
// members acknowledged.
func (r *Recorder) Check(produced int64) Report {
	lines := r.Lines()
	acked := r.AckedSeqs()
	rep := Report{Produced: int(produced), Overlaps: []string{}}
	handled := map[int64]int{}
	for _, l := range lines {
		if l.Kind == "handled" {
			handled[l.Seq]++
		}
	}
	for seq := int64(1); seq <= produced; seq++ {
		if acked[seq] {
			rep.Processed++
		} else {
			rep.Lost++
			if len(rep.LostSeqs) < 20 {
				rep.LostSeqs = append(rep.LostSeqs, seq)
			}
		}
		if n := handled[seq]; n > 1 {
			rep.Duplicates += n - 1
		}
	}
	rep.Overlaps, rep.HandOffs = overlaps(lines)
	r.mu.Lock()
	final := r.finalTokens
	r.mu.Unlock()
	rep.FenceOverlaps, rep.FencedAcks = fenceOverlaps(lines, final)
	return rep
}

type window struct {
	member     string
	epoch      int64
	start, end int64
}

// overlaps finds, per shard, acknowledgement windows of different members
// that intersect in time.
func overlaps(lines []Line) ([]string, int) {
	type wk struct {
		shard  int
		member string
		epoch  int64
	}
	windows := map[wk]*window{}
	for _, l := range lines {
		if l.Kind != "acked" {
			continue
		}
		k := wk{l.Shard, l.Member, l.Epoch}
		w, ok := windows[k]
		if !ok {
			windows[k] = &window{member: l.Member, epoch: l.Epoch, start: l.At, end: l.At}
			continue
		}
		if l.At < w.start {
			w.start = l.At
		}
		if l.At > w.end {
			w.end = l.At
		}
	}
	byShard := map[int][]*window{}
	for k, w := range windows {
		byShard[k.shard] = append(byShard[k.shard], w)
	}
	out := []string{}
	handOffs := 0
	shards := make([]int, 0, len(byShard))
	for s := range byShard {
		shards = append(shards, s)
	}
	sort.Ints(shards)
	for _, s := range shards {
		ws := byShard[s]
		sort.Slice(ws, func(i, j int) bool { return ws[i].start < ws[j].start })
		for i := 1; i < len(ws); i++ {
			if ws[i].member != ws[i-1].member {
				handOffs++
			}
		}
		for i := 0; i < len(ws); i++ {
			for j := i + 1; j < len(ws); j++ {
				if ws[j].start > ws[i].end {
					break
				}
				if ws[i].member != ws[j].member {
					out = append(out, describe(s, ws[i], ws[j]))
				}
			}
		}
	}
	return out, handOffs
}

func clock(ns int64) string { return time.Unix(0, ns).UTC().Format("15:04:05.000") }

func describe(shard int, a, b *window) string {
	f := clock
	return "shard " + strconv.Itoa(shard) + ": " + a.member + " acked " + f(a.start) + "–" + f(a.end) +
		" while " + b.member + " acked " + f(b.start) + "–" + f(b.end)
}
