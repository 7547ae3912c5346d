package config

import (
	"fmt"
	"strings"
)

// Suggestions for a mistyped RSC_* variable. Two kinds of near-miss:
//   - a few letters off (RSC_REDIS_ADDR, RSC_CONFG): edit distance over the
//     whole name (suggest);
//   - a word left out, misspelt or moved (RSC_RESHARDING_GRACE for
//     RSC_RESHARDING_ROUTING_GRACE): every word of the name matches a
//     different word of one known variable (suggestByWords).

// suggestEnv names the known variable closest to name, or "".
func suggestEnv(name string) string {
	if c := suggestByWords(name, knownEnvs); c != "" {
		return c
	}
	return suggest(name, knownEnvs)
}

// didYouMeanEnv is didYouMean for an environment variable.
func didYouMeanEnv(name string) string {
	if c := suggestEnv(name); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}

// suggestByWords picks, among the candidates that contain every word of
// name (after the RSC_ prefix, each word matching a different one), the one
// with the fewest extra words, then the smallest edit distance. A name of
// one word is left to suggest: RSC_URL or RSC_TOKEN would otherwise match
// half the settings.
func suggestByWords(name string, candidates []string) string {
	words := envWords(name)
	if len(words) < 2 {
		return ""
	}
	best, bestExtra, bestD := "", 0, 0
	for _, c := range candidates {
		cw := envWords(c)
		if len(cw) < len(words) || !wordsCovered(words, cw) {
			continue
		}
		extra, d := len(cw)-len(words), levenshtein(strings.ToUpper(name), c)
		if best == "" || extra < bestExtra || (extra == bestExtra && d < bestD) {
			best, bestExtra, bestD = c, extra, d
		}
	}
	return best
}

func envWords(name string) []string {
	return strings.FieldsFunc(strings.TrimPrefix(strings.ToUpper(name), EnvPrefix), func(r rune) bool { return r == '_' })
}

// wordsCovered: each of words matches a distinct word of cw (greedy, exact
// matches first so that a fuzzy match cannot take another word's place).
func wordsCovered(words, cw []string) bool {
	used := make([]bool, len(cw))
	var fuzzy []string
	for _, w := range words {
		i := indexUnused(cw, used, func(c string) bool { return c == w })
		if i < 0 {
			fuzzy = append(fuzzy, w)
			continue
		}
		used[i] = true
	}
	for _, w := range fuzzy {
		i := indexUnused(cw, used, func(c string) bool { return wordNear(w, c) })
		if i < 0 {
			return false
		}
		used[i] = true
	}
	return true
}

func indexUnused(cw []string, used []bool, match func(string) bool) int {
	for i, c := range cw {
		if !used[i] && match(c) {
			return i
		}
	}
	return -1
}

// wordNear: one letter off, or a prefix (ADDR for ADDRS, INTERVAL for
// INTERVALS), for words of four letters or more; short words must match.
func wordNear(w, c string) bool {
	if len(w) < 4 || len(c) < 4 {
		return false
	}
	return levenshtein(w, c) <= 1 || strings.HasPrefix(c, w) || strings.HasPrefix(w, c)
}

// didYouMean names the candidate closest to s when it is a plausible typo.
func didYouMean(s string, candidates []string) string {
	if c := suggest(s, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}

func suggest(s string, candidates []string) string {
	best, bestD := "", 3+len(s)/8
	for _, c := range candidates {
		if d := levenshtein(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func levenshtein(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
