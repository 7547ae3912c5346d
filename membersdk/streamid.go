package membersdk

import (
	"strconv"
	"strings"
)

// idLess compares stream ids ("ms-seq"); "" sorts first. It runs for every
// batch read and acknowledged, so it parses with strconv, not fmt.
func idLess(a, b string) bool {
	if a == "" {
		return b != ""
	}
	am, as := splitID(a)
	bm, bs := splitID(b)
	if am != bm {
		return am < bm
	}
	return as < bs
}

// splitID parses "ms-seq" (or "ms"); unparsable parts are 0.
func splitID(id string) (ms, seq uint64) {
	msPart, seqPart, _ := strings.Cut(id, "-")
	ms, _ = strconv.ParseUint(msPart, 10, 64)
	seq, _ = strconv.ParseUint(seqPart, 10, 64)
	return ms, seq
}
