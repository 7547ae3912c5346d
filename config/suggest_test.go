package config

import (
	"strings"
	"testing"

	"github.com/agnivade/levenshtein"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDidYouMeanNamesTheVariableWithAWordLeftOut(t *testing.T) {
	for typo, want := range map[string]string{
		"RSC_RESHARDING_GRACE":        "RSC_RESHARDING_ROUTING_GRACE",
		"RSC_COORDINATION_LEASE_TTL":  "RSC_COORDINATION_MEMBER_LEASE_TTL",
		"RSC_LEASE_TTL_COORDINATION":  "RSC_COORDINATION_MEMBER_LEASE_TTL",
		"RSC_REDIS_ADDR":              "RSC_REDIS_ADDRS",
		"RSC_RESHARDNG_ROUTING_GRACE": "RSC_RESHARDING_ROUTING_GRACE",
	} {
		_, err := Load(nil, []string{typo + "=1m"})
		require.Error(t, err, typo)
		assert.Contains(t, err.Error(), "config: unknown environment variable "+typo+" (did you mean "+want+"?)")
	}
}

// nearMisses are the typos of one known variable: a letter dropped,
// doubled or swapped with the next, a word left out, two words swapped.
func nearMisses(env string) []string {
	body := strings.TrimPrefix(env, EnvPrefix)
	var out []string
	for i := 1; i < len(body)-1; i++ {
		if body[i] == '_' || body[i-1] == '_' || body[i+1] == '_' {
			continue
		}
		out = append(out,
			body[:i]+body[i+1:],                           // dropped
			body[:i]+body[i:i+1]+body[i:],                 // doubled
			body[:i]+body[i+1:i+2]+body[i:i+1]+body[i+2:]) // swapped
	}
	words := strings.Split(body, "_")
	if len(words) >= 3 {
		for i := 1; i < len(words); i++ { // keep the section word
			out = append(out, strings.Join(append(append([]string{}, words[:i]...), words[i+1:]...), "_"))
		}
	}
	if len(words) >= 2 {
		w := append([]string{}, words...)
		w[0], w[1] = w[1], w[0]
		out = append(out, strings.Join(w, "_"))
	}
	for i := range out {
		out[i] = EnvPrefix + out[i]
	}
	return out
}

// Every near-miss of every known variable stops the start and names a
// variable that holds all its words (the intended one, or one as close when
// the typo fits two); a letter-level typo names exactly the intended one
// unless another variable is as close.
func TestEveryNearMissOfEveryVariableGetsASuggestion(t *testing.T) {
	var env []string
	want := map[string]string{}
	for _, known := range knownEnvs {
		for _, typo := range nearMisses(known) {
			if byEnv[typo] != nil || typo == EnvConfigFile {
				continue // the typo is another real variable
			}
			got := suggestEnv(typo)
			require.NotEmpty(t, got, "%s (for %s) gets no suggestion", typo, known)
			if got != known {
				assert.True(t, schema.HasWordsOf(got, typo) || levenshtein.ComputeDistance(typo, got) <= levenshtein.ComputeDistance(typo, known),
					"%s (for %s): suggested %s, which is no closer", typo, known, got)
			}
			if _, dup := want[typo]; !dup {
				env = append(env, typo+"=x")
			}
			want[typo] = got
		}
	}
	require.Greater(t, len(want), 1000)
	// One start with all of them: each is reported, with its suggestion.
	_, err := Load(nil, env)
	require.Error(t, err)
	lines := map[string]bool{}
	for _, l := range strings.Split(err.Error(), "\n") {
		lines[l] = true
	}
	for typo, got := range want {
		assert.True(t, lines["config: unknown environment variable "+typo+" (did you mean "+got+"?)"], typo)
	}
}
