package source

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
)

// Decode errors, as the operator reads them. Nothing here reads another
// library's error text: a wrong type is found through mapstructure's typed
// *DecodeError, which names the key, and what the key takes is said from its
// Go type; unknown keys are found by comparing the merged tree with the
// schema's root struct.

// explain turns mapstructure's error tree into one error per problem, each
// naming the key, its value (never a secret) and where the value came from.
func (l *loader) explain(err error) {
	switch e := err.(type) {
	case *mapstructure.DecodeError:
		name, problem := e.Name(), "must be a value of another type"
		if t := l.s.typeAt(name); t != nil && t.Kind() == reflect.Struct && !strings.Contains(name, ".") {
			problem = "is a section and must be a mapping"
		} else if t != nil {
			problem = "must be " + l.s.kindOf(name, t)
		}
		l.errs = append(l.errs, fmt.Errorf("config: %s = %s (from %s): %s", name, l.show(name), l.source(name), problem))
	case interface{ Unwrap() []error }:
		for _, e := range e.Unwrap() {
			l.explain(e)
		}
	case interface{ Unwrap() error }:
		l.explain(e.Unwrap())
	default:
		l.errs = append(l.errs, fmt.Errorf("config: %w", err))
	}
}

// unknownKeys reports every key of the merged tree that names no setting,
// and every unknown key of an entry of a list of mappings (auth.users).
func (l *loader) unknownKeys() {
	seen := map[string]bool{}
	unknown := func(key, name string, candidates []string) {
		if !seen[key] {
			seen[key] = true
			l.errs = append(l.errs, fmt.Errorf("config: %s: unknown key %q%s", l.source(key), key, DidYouMean(Suggest(name, candidates))))
		}
	}
	for _, key := range l.k.Keys() {
		// The shortest prefix of key that is no struct (section or nested
		// struct such as cluster.tls) must be a setting.
		name := key
		for i, c := range key {
			if c == '.' && !l.s.Prefixes[key[:i]] {
				name = key[:i]
				break
			}
		}
		if l.s.ByKey[name] == nil && !l.s.Prefixes[name] {
			unknown(name, name, l.s.KeysAndSec)
		}
	}
	for _, st := range l.s.Settings {
		if !isListOfStructs(st.Type) {
			continue
		}
		list, _ := l.k.Get(st.Key).([]any)
		for i, u := range list {
			m, _ := u.(map[string]any)
			for k := range m {
				if key := fmt.Sprintf("%s[%d].%s", st.Key, i, k); l.s.typeAt(key) == nil {
					unknown(key, k, fieldKeys(st.Type.Elem()))
				}
			}
		}
	}
}

// typeAt is the Go type at a decode path such as "auth.users[0].roles", or
// nil when the path names nothing in the root struct.
func (s *Schema) typeAt(path string) reflect.Type {
	t := s.Root
	for _, seg := range strings.Split(strings.ReplaceAll(path, "[", ".["), ".") {
		if f, ok := fieldByKey(t, seg); ok {
			t = f.Type
		} else if strings.HasPrefix(seg, "[") && t.Kind() == reflect.Slice {
			t = t.Elem()
		} else {
			return nil
		}
	}
	return t
}

// fieldByKey is the field of struct type t whose koanf tag is key.
func fieldByKey(t reflect.Type, key string) (f reflect.StructField, ok bool) {
	for i := 0; t.Kind() == reflect.Struct && i < t.NumField(); i++ {
		if f = t.Field(i); f.Tag.Get("koanf") == key {
			return f, true
		}
	}
	return f, false
}

// source is where the value at name (or the list or section holding it) came from.
func (l *loader) source(name string) string {
	for ; name != ""; name = name[:max(0, strings.LastIndexAny(name, ".["))] {
		if s, ok := l.src[name]; ok {
			return s
		}
	}
	return "default"
}

// show is the value at name for an error, "(redacted)" when it is a secret
// or inside one (auth.users[0].roles).
func (l *loader) show(name string) string {
	key, _, _ := strings.Cut(name, "[")
	if s, ok := l.s.ByKey[key]; ok && s.Secret {
		return "(redacted)"
	} else if v := l.k.Get(name); v != nil {
		return Show(v)
	}
	return "null"
}

// kindOf says what the key name of type t takes, for errors.
func (s *Schema) kindOf(name string, t reflect.Type) string {
	switch {
	case t == reflect.TypeOf(time.Duration(0)):
		return `a duration with a unit, like "3s", "500ms" or "1m30s"`
	case t == reflect.TypeOf(ByteSize(0)):
		return `a byte size like "1MiB", "512KiB" or a number of bytes`
	case isListOfStructs(t) && s.ByKey[name] != nil:
		return "a list of " + s.ByKey[name].Shape
	case t.Kind() == reflect.Struct:
		return "a mapping {" + strings.Join(fieldKeys(t), ", ") + "}"
	}
	kinds := map[reflect.Kind]string{reflect.Int: "an integer", reflect.Bool: "true or false", reflect.Float64: "a number", reflect.Slice: "a list, or one comma-separated string"}
	if k, ok := kinds[t.Kind()]; ok {
		return k
	}
	return "a single " + t.Kind().String() + " value, not a list or mapping"
}

// Show renders a value for an error message: strings quoted, durations and
// sizes in their usual form, lists in brackets.
func Show(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
