package protocol

import "strings"

// StreamIDLess compares stream ids ("ms-seq", as Redis writes them: decimal, no
// leading zeros); "" sorts first. It runs for every batch read and
// acknowledged, so it compares digits in place instead of parsing (the
// fmt.Sscan it replaces took 15 % of the consumer's CPU).
func StreamIDLess(a, b string) bool {
	if a == "" {
		return b != ""
	}
	if b == "" {
		return false
	}
	am, as, _ := strings.Cut(a, "-")
	bm, bs, _ := strings.Cut(b, "-")
	if c := compareDecimal(am, bm); c != 0 {
		return c < 0
	}
	return compareDecimal(as, bs) < 0
}

// compareDecimal compares two non-negative decimal numbers without leading
// zeros ("" is 0): the longer is larger, equal lengths compare as strings.
func compareDecimal(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}
