package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/redisstream/coordinator/config/source"
	"github.com/stretchr/testify/require"
)

const testHost = "test-host.example"

func TestMain(m *testing.M) {
	hostname = func() (string, error) { return testHost, nil }
	os.Exit(m.Run())
}

// writeFile writes a temporary YAML file and returns its path.
func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rsc.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

// yamlOf renders flat keys ("section.key" or "section.sub.key": yaml text)
// as a file of nested mappings.
func yamlOf(flat map[string]string) string {
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	var open []string // the mappings the last line is in
	for _, k := range keys {
		parts := strings.Split(k, ".")
		common := 0
		for common < len(open) && common < len(parts)-1 && open[common] == parts[common] {
			common++
		}
		open = open[:common]
		for i := common; i < len(parts)-1; i++ {
			b.WriteString(strings.Repeat("  ", i) + parts[i] + ":\n")
			open = append(open, parts[i])
		}
		fmt.Fprintf(&b, "%s%s: %s\n", strings.Repeat("  ", len(parts)-1), parts[len(parts)-1], flat[k])
	}
	return b.String()
}

// valueOf renders the value of key in cfg canonically, for comparisons.
func valueOf(t *testing.T, cfg Config, key string) string {
	t.Helper()
	s, ok := byKey[key]
	require.True(t, ok, "unknown key %s", key)
	switch v := reflect.ValueOf(cfg).FieldByIndex(s.Index).Interface().(type) {
	case []string:
		return strings.Join(v, ",")
	case []User:
		var parts []string
		for _, u := range v {
			parts = append(parts, u.Username+"/"+u.Password+"/"+strings.Join(u.Roles, "+"))
		}
		return strings.Join(parts, ",")
	default:
		return fmt.Sprint(v)
	}
}

// normalize decodes the text form of a value of key the way an env variable
// would be, and renders it canonically.
func normalize(t *testing.T, key, text string) string {
	t.Helper()
	var cfg Config
	_, err := schema.Read(&cfg, newFlagSet(), []string{EnvName(key) + "=" + text}, nil)
	require.NoError(t, err, "%s = %q", key, text)
	return valueOf(t, cfg, key)
}

// The machinery of config/source, as these tests use it on the coordinator's schema.
var (
	didYouMean = source.DidYouMean
	suggest    = source.Suggest
	suggestEnv = schema.SuggestEnv
	knownEnvs  = schema.KnownEnvs
	usersType  = reflect.TypeOf([]User(nil))
)
