package source

import (
	"reflect"
	"strings"
)

// Setting is one leaf of a configuration struct, read from its struct tags,
// so that keys, defaults, env names, flags, --help and errors never drift
// from the struct.
type Setting struct {
	Key, Env               string // "coordination.member-lease-ttl", "RSC_COORDINATION_MEMBER_LEASE_TTL"
	Index                  []int  // field index path in the root struct
	Type                   reflect.Type
	Help, Valid, Hint, Def string // its help, validate, hint and default tags
	Secret                 bool   // never echoed, no command-line flag
	Shape                  string // a list of mappings: its shape tag for errors, "{username, password, roles}"
}

// Schema is every setting of one configuration struct (sections of leaves,
// koanf tags dotted by section) and the names derived from them.
type Schema struct {
	Root       reflect.Type
	Product    string // "coordinator": names the program in warnings
	EnvPrefix  string // "RSC_"
	ConfigEnv  string // "RSC_CONFIG": the config file when --config is not given
	Settings   []*Setting
	ByKey      map[string]*Setting
	ByEnv      map[string]*Setting
	Sections   map[string]bool // "coordination", ...
	Prefixes   map[string]bool // every struct a key is nested in: the sections and "cluster.tls", ...
	KnownEnvs  []string        // every variable read, ConfigEnv first
	KeysAndSec []string        // the names an unknown key is compared with
}

// NewSchema walks root (a struct of sections) and indexes its settings. It
// panics when two keys map to one variable: a programming error.
func NewSchema(root reflect.Type, product, envPrefix, configEnv string) *Schema {
	s := &Schema{Root: root, Product: product, EnvPrefix: envPrefix, ConfigEnv: configEnv,
		ByKey: map[string]*Setting{}, ByEnv: map[string]*Setting{}, Sections: map[string]bool{}, Prefixes: map[string]bool{}, KnownEnvs: []string{configEnv}}
	s.Settings = s.walk(root, "", nil)
	for _, st := range s.Settings {
		if s.ByEnv[st.Env] != nil {
			panic("config: two keys map to " + st.Env)
		}
		s.ByKey[st.Key], s.ByEnv[st.Env] = st, st
		s.KnownEnvs, s.KeysAndSec = append(s.KnownEnvs, st.Env), append(s.KeysAndSec, st.Key)
		for i, c := range st.Key {
			if c == '.' {
				s.Prefixes[st.Key[:i]] = true
			}
		}
		if section, _, _ := strings.Cut(st.Key, "."); !s.Sections[section] {
			s.Sections[section], s.KeysAndSec = true, append(s.KeysAndSec, section)
		}
	}
	return s
}

func (s *Schema) walk(t reflect.Type, prefix string, index []int) (out []*Setting) {
	for i := range t.NumField() {
		f, idx := t.Field(i), append(append([]int{}, index...), i)
		key := strings.TrimPrefix(prefix+"."+f.Tag.Get("koanf"), ".")
		if f.Type.Kind() == reflect.Struct {
			out = append(out, s.walk(f.Type, key, idx)...)
			continue
		}
		env := s.EnvPrefix + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
		out = append(out, &Setting{Key: key, Env: env, Index: idx, Type: f.Type, Help: f.Tag.Get("help"), Valid: f.Tag.Get("validate"),
			Hint: f.Tag.Get("hint"), Def: f.Tag.Get("default"), Secret: f.Tag.Get("secret") == "true", Shape: f.Tag.Get("shape")})
	}
	return out
}

// Defaults maps every key to its default tag ("" when it has none).
func (s *Schema) Defaults() map[string]any {
	m := map[string]any{}
	for _, st := range s.Settings {
		m[st.Key] = st.Def
	}
	return m
}

// isListOfStructs: a key such as auth.users, a list of mappings, read from
// YAML even in the environment and never echoed (its entries hold secrets).
func isListOfStructs(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct
}

// fieldKeys are the koanf tags of struct type t: the keys of a mapping.
func fieldKeys(t reflect.Type) (out []string) {
	for _, f := range reflect.VisibleFields(t) {
		out = append(out, f.Tag.Get("koanf"))
	}
	return out
}
