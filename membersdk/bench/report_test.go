package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// report collects the figures of a run, in order.
type report struct{ rows [][2]string }

func (r *report) add(name, value string) { r.rows = append(r.rows, [2]string{name, value}) }

func (r *report) String() string {
	var sb strings.Builder
	sb.WriteString("\n| figure | value |\n|---|---|\n")
	for _, row := range r.rows {
		fmt.Fprintf(&sb, "| %s | %s |\n", row[0], row[1])
	}
	return sb.String()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// percentile of sorted durations (p in [0,1]).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p * float64(len(sorted)-1))
	return sorted[i]
}

func rates(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.1fk", x/1000)
	}
	return strings.Join(parts, ", ")
}

func ratioList(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
