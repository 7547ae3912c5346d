package config

import (
	"reflect"
	"strings"
)

// EnvPrefix prefixes every environment variable Load reads.
const EnvPrefix = "RSC_"

// EnvConfigFile names the config file when --config is not given.
const EnvConfigFile = EnvPrefix + "CONFIG"

// setting is one leaf of Config, read from its struct tags, so that keys,
// defaults, env names, flags, --help and errors never drift from the struct.
type setting struct {
	key, env               string // "coordination.member-lease-ttl", "RSC_COORDINATION_MEMBER_LEASE_TTL"
	index                  []int  // field index path in Config
	typ                    reflect.Type
	help, valid, hint, def string // its help, validate (bounds.go), hint and default tags
	secret                 bool   // never echoed, no command-line flag
}

var (
	settings               = walkSettings(reflect.TypeOf(Config{}), "", nil)
	byKey, byEnv, sections = map[string]*setting{}, map[string]*setting{}, map[string]bool{} // sections: "coordination", ...
	knownEnvs              = []string{EnvConfigFile}
	keysAndSections        []string // the names an unknown key is compared with
	usersType              = reflect.TypeOf([]User(nil))
)

func init() {
	for _, s := range settings {
		if byEnv[s.env] != nil {
			panic("config: two keys map to " + s.env)
		}
		byKey[s.key], byEnv[s.env] = s, s
		knownEnvs, keysAndSections = append(knownEnvs, s.env), append(keysAndSections, s.key)
		if section, _, _ := strings.Cut(s.key, "."); !sections[section] {
			sections[section], keysAndSections = true, append(keysAndSections, section)
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

func walkSettings(t reflect.Type, prefix string, index []int) (out []*setting) {
	for i := range t.NumField() {
		f, idx := t.Field(i), append(append([]int{}, index...), i)
		key := strings.TrimPrefix(prefix+"."+f.Tag.Get("koanf"), ".")
		if f.Type.Kind() == reflect.Struct {
			out = append(out, walkSettings(f.Type, key, idx)...)
			continue
		}
		env := EnvPrefix + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
		out = append(out, &setting{key: key, env: env, index: idx, typ: f.Type, help: f.Tag.Get("help"), valid: f.Tag.Get("validate"),
			hint: f.Tag.Get("hint"), def: f.Tag.Get("default"), secret: f.Tag.Get("secret") == "true"})
	}
	return out
}
