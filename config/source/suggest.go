package source

import (
	"fmt"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Suggestions for a mistyped key or RSC_* variable. Two kinds of near-miss:
//   - a few letters off (RSC_REDIS_ADDR, RSC_CONFG): edit distance over the
//     whole name (Suggest);
//   - a word left out, misspelt or moved (RSC_RESHARDING_GRACE for
//     RSC_RESHARDING_ROUTING_GRACE): every word of the name matches a
//     different word of one known variable (suggestByWords).

// SuggestEnv names the known variable closest to name, or "".
func (s *Schema) SuggestEnv(name string) string {
	if c := suggestByWords(s.EnvPrefix, name, s.KnownEnvs); c != "" {
		return c
	}
	return Suggest(name, s.KnownEnvs)
}

// DidYouMean is " (did you mean X?)" for a suggestion X, else "".
func DidYouMean(x string) string {
	if x == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", x)
}

// suggestByWords picks, among the candidates that contain every word of
// name (each matching a different one), the one with the fewest extra words,
// then the smallest edit distance. A one-word name is left to Suggest:
// RSC_URL or RSC_TOKEN would otherwise match half the settings.
func suggestByWords(prefix, name string, candidates []string) (best string) {
	words, bestExtra, bestD := envWords(prefix, name), 0, 0
	for _, c := range candidates {
		cw := envWords(prefix, c)
		if len(words) < 2 || len(cw) < len(words) || !wordsCovered(words, cw) {
			continue
		}
		extra, d := len(cw)-len(words), levenshtein.ComputeDistance(strings.ToUpper(name), c)
		if best == "" || extra < bestExtra || (extra == bestExtra && d < bestD) {
			best, bestExtra, bestD = c, extra, d
		}
	}
	return best
}

func envWords(prefix, name string) []string {
	return strings.FieldsFunc(strings.TrimPrefix(strings.ToUpper(name), prefix), func(r rune) bool { return r == '_' })
}

// wordsCovered: each of words matches a distinct word of cw, exact matches
// first so that a fuzzy match cannot take another word's place.
func wordsCovered(words, cw []string) bool {
	used := make([]bool, len(cw))
	take := func(w string, exact bool) bool {
		for i, c := range cw {
			if !used[i] && (c == w || !exact && wordNear(w, c)) {
				used[i] = true
				return true
			}
		}
		return false
	}
	var fuzzy []string
	for _, w := range words {
		if !take(w, true) {
			fuzzy = append(fuzzy, w)
		}
	}
	for _, w := range fuzzy {
		if !take(w, false) {
			return false
		}
	}
	return true
}

// wordNear: one letter off, or a prefix (ADDR for ADDRS), for words of four
// letters or more; short words must match.
func wordNear(w, c string) bool {
	return len(w) >= 4 && len(c) >= 4 && (levenshtein.ComputeDistance(w, c) <= 1 || strings.HasPrefix(c, w) || strings.HasPrefix(w, c))
}

// Suggest names the candidate closest to s when it is a plausible typo.
func Suggest(s string, candidates []string) (best string) {
	bestD := 3 + len(s)/8
	for _, c := range candidates {
		if d := levenshtein.ComputeDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// HasWordsOf reports whether every word of the variable name matches a
// distinct word of the variable candidate (how suggestByWords chooses).
func (s *Schema) HasWordsOf(candidate, name string) bool {
	return wordsCovered(envWords(s.EnvPrefix, name), envWords(s.EnvPrefix, candidate))
}
