package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// shardList renders shard ids compactly: "0-3,7".
func shardList(ids []protocol.ShardID) string {
	return intRanges(protocol.Indexes(ids))
}

func intRanges(xs []int) string {
	if len(xs) == 0 {
		return "-"
	}
	xs = append([]int(nil), xs...)
	sort.Ints(xs)
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(xs[i]))
		} else {
			parts = append(parts, strconv.Itoa(xs[i])+"-"+strconv.Itoa(xs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// unknownNeg renders -1 (unknown) as "?".
func unknownNeg(n int64) string {
	if n < 0 {
		return "?"
	}
	return strconv.FormatInt(n, 10)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// bytesHuman renders a byte count (-1 unknown).
func bytesHuman(n int64) string {
	switch {
	case n < 0:
		return "?"
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKiB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1024*1024))
	}
	return fmt.Sprintf("%.1fGiB", float64(n)/(1024*1024*1024))
}

// until renders the time left until an RFC 3339 instant ("expired" if past).
func until(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return orDash(ts)
	}
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "expired"
	case d > 24*time.Hour:
		return ">24h"
	}
	return d.Round(100 * time.Millisecond).String()
}

// ago renders the time since an RFC 3339 instant.
func ago(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return orDash(ts)
	}
	d := now.Sub(t)
	if d < 0 {
		d = 0
	}
	return d.Round(100*time.Millisecond).String() + " ago"
}

// kvFields renders stream entry fields "k=v", sorted by field, quoting
// values that hold spaces, quotes or control characters.
func kvFields(f map[string]string) string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = quoteIf(k) + "=" + quoteIf(f[k])
	}
	return strings.Join(parts, " ")
}

func quoteIf(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\"=\\") || strconv.Quote(s) != `"`+s+`"` {
		return strconv.Quote(s)
	}
	return s
}
