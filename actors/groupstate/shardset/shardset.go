package shardset

import "slices"

// Sorted-set helpers over ascending []int. Results never alias a caller's backing array
// in a way that could be appended to: when the result equals an input, that input is
// returned as is (slices inside the group are immutable); otherwise a fresh slice is built.

// SortedCopy returns a sorted copy of s (nil when s is empty).
func SortedCopy(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// FirstDup returns a duplicated value of sorted s, if any.
func FirstDup(sorted []int) (int, bool) {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return sorted[i], true
		}
	}
	return 0, false
}

// Contains reports whether sorted holds x.
func Contains(sorted []int, x int) bool {
	_, ok := slices.BinarySearch(sorted, x)
	return ok
}

// FirstMissing returns the first element of a that is in neither b nor c (all sorted).
func FirstMissing(a, b, c []int) (int, bool) {
	for _, x := range a {
		if !Contains(b, x) && !Contains(c, x) {
			return x, true
		}
	}
	return 0, false
}

// Diff returns a − b.
func Diff(a, b []int) []int {
	if len(a) == 0 || len(b) == 0 {
		return a
	}
	n := 0
	for _, x := range a {
		if !Contains(b, x) {
			n++
		}
	}
	if n == len(a) {
		return a
	}
	if n == 0 {
		return nil
	}
	out := make([]int, 0, n)
	for _, x := range a {
		if !Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// Intersect returns a ∩ b.
func Intersect(a, b []int) []int {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	n := 0
	for _, x := range a {
		if Contains(b, x) {
			n++
		}
	}
	if n == len(a) {
		return a
	}
	if n == 0 {
		return nil
	}
	out := make([]int, 0, n)
	for _, x := range a {
		if Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// Union returns a ∪ b.
func Union(a, b []int) []int {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// RespSlice returns s for a Response, non-nil. It is not copied: slices inside a Group or
// Change are immutable, and a Response's sets are read-only (types.go).
func RespSlice(s []int) []int {
	if len(s) == 0 {
		return []int{}
	}
	return s
}

// SortedUnique reports whether s is strictly ascending and non-negative.
func SortedUnique(s []int) bool {
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			return false
		}
	}
	return len(s) == 0 || s[0] >= 0
}
