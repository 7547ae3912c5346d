package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
)

// Decode errors, as the operator reads them.

// explain turns mapstructure's error tree into one error per problem, each
// naming the key, its value (never a secret) and where the value came from.
func (l *loader) explain(err error) {
	switch e := err.(type) {
	case *mapstructure.DecodeError:
		l.errs = append(l.errs, l.describe(e.Name(), e.Unwrap())...)
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

func (l *loader) describe(name string, err error) []error {
	if rest, ok := strings.CutPrefix(err.Error(), "has invalid keys: "); ok { // ErrorUnused
		var out []error
		for _, k := range strings.Split(rest, ", ") {
			key := strings.TrimPrefix(name+"."+k, ".")
			hint := didYouMean(key, keysAndSections)
			if strings.HasSuffix(name, "]") { // inside a list of users
				hint = didYouMean(k, userKeys)
			}
			out = append(out, fmt.Errorf("config: %s: unknown key %q%s", l.source(key), key, hint))
		}
		return out
	}
	problem := err.Error()
	if s, ok := byKey[name]; ok {
		problem = "must be " + kindOf(s.typ)
	} else if sections[name] {
		problem = "is a section and must be a mapping"
	}
	return []error{fmt.Errorf("config: %s = %s (from %s): %s", name, l.show(name), l.source(name), problem)}
}

// source is where the value at name (or the list or section holding it) came from.
func (l *loader) source(name string) string {
	for {
		if s, ok := l.src[name]; ok {
			return s
		}
		i := strings.LastIndexAny(name, ".[")
		if i < 0 {
			return "default"
		}
		name = name[:i]
	}
}

func (l *loader) show(name string) string {
	if s, ok := byKey[name]; (ok && s.secret) || strings.HasPrefix(name, "auth.users") {
		return "(redacted)"
	}
	switch v := l.k.Get(name).(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	default:
		return fmt.Sprint(v)
	}
}

// kindOf says what a key of type t takes, for errors.
func kindOf(t reflect.Type) string {
	switch t {
	case reflect.TypeOf(time.Duration(0)):
		return `a duration with a unit, like "3s", "500ms" or "1m30s"`
	case reflect.TypeOf(ByteSize(0)):
		return `a byte size like "1MiB", "512KiB" or a number of bytes`
	case usersType:
		return "a list of {username, password, roles}"
	}
	switch t.Kind() {
	case reflect.Int:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list, or one comma-separated string"
	}
	return "a single " + t.Kind().String() + " value, not a list or mapping"
}
