package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// EnvPrefix prefixes every environment variable Load reads.
const EnvPrefix = "RSC_"

// EnvConfigFile names the config file when --config is not given.
const EnvConfigFile = EnvPrefix + "CONFIG"

// field is one leaf setting of Config, derived from the struct by reflection
// so that the key set, env names and flags can never drift from the struct.
type field struct {
	key    string // dotted kebab-case key, e.g. "coordination.member-lease-ttl"
	env    string // e.g. "RSC_COORDINATION_MEMBER_LEASE_TTL"
	index  []int  // reflect field index path in Config
	typ    reflect.Type
	help   string
	secret bool // never echoed in errors, no command-line flag
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	byteSizeType = reflect.TypeOf(ByteSize(0))
	stringsType  = reflect.TypeOf([]string(nil))
	usersType    = reflect.TypeOf([]User(nil))
)

var (
	fields     = buildSchema()
	fieldByKey = indexFields(func(f *field) string { return f.key })
	fieldByEnv = indexFields(func(f *field) string { return f.env })
	// sections holds every proper prefix of a key ("coordination", ...).
	sections = buildSections()
)

// Keys returns every configuration key, in struct order.
func Keys() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.key
	}
	return out
}

// EnvName returns the environment variable of a key ("" if the key is unknown).
func EnvName(key string) string {
	if f, ok := fieldByKey[key]; ok {
		return f.env
	}
	return ""
}

func envNameOf(key string) string {
	return EnvPrefix + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}

func buildSchema() []*field {
	var out []*field
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag := sf.Tag.Get("koanf")
			if tag == "" {
				panic(fmt.Sprintf("config: field %s.%s has no koanf tag", t.Name(), sf.Name))
			}
			key := tag
			if prefix != "" {
				key = prefix + "." + tag
			}
			idx := append(append([]int{}, index...), i)
			if sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, key, idx)
				continue
			}
			switch sf.Type {
			case durationType, byteSizeType, stringsType, usersType:
			default:
				switch sf.Type.Kind() {
				case reflect.String, reflect.Bool, reflect.Int, reflect.Float64:
				default:
					panic(fmt.Sprintf("config: unsupported type %s of key %s", sf.Type, key))
				}
			}
			out = append(out, &field{
				key:    key,
				env:    envNameOf(key),
				index:  idx,
				typ:    sf.Type,
				help:   sf.Tag.Get("help"),
				secret: sf.Tag.Get("secret") == "true",
			})
		}
	}
	walk(reflect.TypeOf(Config{}), "", nil)
	return out
}

func indexFields(name func(*field) string) map[string]*field {
	m := make(map[string]*field, len(fields))
	for _, f := range fields {
		n := name(f)
		if other, dup := m[n]; dup {
			panic(fmt.Sprintf("config: keys %s and %s both map to %s", other.key, f.key, n))
		}
		m[n] = f
	}
	return m
}

func buildSections() map[string]bool {
	m := map[string]bool{}
	for _, f := range fields {
		parts := strings.Split(f.key, ".")
		for i := 1; i < len(parts); i++ {
			m[strings.Join(parts[:i], ".")] = true
		}
	}
	return m
}

// typeName is how a key's type is described in errors and --help.
func (f *field) typeName() string {
	switch f.typ {
	case durationType:
		return "duration"
	case byteSizeType:
		return "bytesize"
	case stringsType:
		return "list"
	case usersType:
		return "users"
	}
	return f.typ.Kind().String()
}

// suggest returns the candidate closest to s, if it is close enough to be a
// plausible typo.
func suggest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := levenshtein(strings.ToLower(s), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= 2+len(s)/8 {
		return best
	}
	return ""
}

func didYouMean(s string, candidates []string) string {
	if c := suggest(s, candidates); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
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

func envNames() []string {
	out := make([]string, 0, len(fields)+1)
	for _, f := range fields {
		out = append(out, f.env)
	}
	out = append(out, EnvConfigFile)
	sort.Strings(out)
	return out
}

func keysAndSections() []string {
	out := Keys()
	for s := range sections {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
