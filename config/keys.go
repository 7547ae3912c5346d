package config

import (
	"reflect"
	"strings"
)

// EnvPrefix prefixes every environment variable Load reads.
const EnvPrefix = "RSC_"

// EnvConfigFile names the config file when --config is not given.
const EnvConfigFile = EnvPrefix + "CONFIG"

// setting is one leaf of Config, derived from the struct tags so that the
// key set, env names, flags and --help can never drift from the struct.
type setting struct {
	key    string // dotted kebab-case key, e.g. "coordination.member-lease-ttl"
	env    string // RSC_COORDINATION_MEMBER_LEASE_TTL
	index  []int  // field index path in Config
	typ    reflect.Type
	help   string
	secret bool   // never echoed, no command-line flag
	valid  string // its validate tag (bounds.go) and hint
	hint   string
}

var (
	settings  = walkSettings(reflect.TypeOf(Config{}), "", nil)
	byKey     = map[string]*setting{}
	byEnv     = map[string]*setting{}
	sections  = map[string]bool{} // "coordination", ...: RSC_COORDINATION_* is ours
	knownEnvs = []string{EnvConfigFile}
	// keysAndSections are the names an unknown key is compared with.
	keysAndSections []string
	usersType       = reflect.TypeOf([]User(nil))
)

func init() {
	for _, s := range settings {
		if byEnv[s.env] != nil {
			panic("config: two keys map to " + s.env)
		}
		byKey[s.key], byEnv[s.env] = s, s
		knownEnvs = append(knownEnvs, s.env)
		keysAndSections = append(keysAndSections, s.key)
		if section := s.key[:strings.IndexByte(s.key, '.')]; !sections[section] {
			sections[section] = true
			keysAndSections = append(keysAndSections, section)
		}
	}
}

// Keys returns every configuration key, in struct order.
func Keys() []string {
	out := make([]string, len(settings))
	for i, s := range settings {
		out[i] = s.key
	}
	return out
}

// EnvName returns the environment variable of a key ("" if the key is unknown).
func EnvName(key string) string {
	if s, ok := byKey[key]; ok {
		return s.env
	}
	return ""
}

func walkSettings(t reflect.Type, prefix string, index []int) []*setting {
	var out []*setting
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := strings.TrimPrefix(prefix+"."+f.Tag.Get("koanf"), ".")
		idx := append(append([]int{}, index...), i)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, walkSettings(f.Type, key, idx)...)
			continue
		}
		env := EnvPrefix + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
		out = append(out, &setting{key: key, env: env, index: idx, typ: f.Type,
			help: f.Tag.Get("help"), secret: f.Tag.Get("secret") == "true", valid: f.Tag.Get("validate"), hint: f.Tag.Get("hint")})
	}
	return out
}
