package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Decoding of raw layer values (strings, lists, maps) into typed fields.

// defaultsFlat renders Default() in the same raw form the other layers use
// (strings, []any, maps), so every layer goes through one decoder.
func defaultsFlat() map[string]any {
	root := reflect.ValueOf(Default())
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		out[f.key] = rawOf(root.FieldByIndex(f.index))
	}
	return out
}

func rawOf(v reflect.Value) any {
	switch v.Type() {
	case stringsType:
		return toAnySlice(v.Interface().([]string))
	case usersType:
		us := v.Interface().([]User)
		out := make([]any, len(us))
		for i, u := range us {
			out[i] = map[string]any{"username": u.Username, "password": u.Password, "roles": toAnySlice(u.Roles)}
		}
		return out
	}
	return formatScalar(v)
}

func formatScalar(v reflect.Value) string {
	switch v.Type() {
	case durationType:
		return time.Duration(v.Int()).String()
	case byteSizeType:
		return ByteSize(v.Int()).String()
	}
	switch v.Kind() {
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	default:
		return fmt.Sprint(v.Interface())
	}
}

func toAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// decode turns a raw layer value (nil, string, []any or map) into the field's type.
func decode(f *field, raw any) (reflect.Value, error) {
	if raw == nil {
		return reflect.Zero(f.typ), nil
	}
	switch f.typ {
	case stringsType:
		s, err := decodeStrings(raw)
		return reflect.ValueOf(s), err
	case usersType:
		u, err := decodeUsers(raw)
		return reflect.ValueOf(u), err
	}
	s, ok := raw.(string)
	if !ok {
		return reflect.Value{}, fmt.Errorf("must be a single %s value, not a list or mapping", f.typeName())
	}
	s = strings.TrimSpace(s)
	switch f.typ {
	case durationType:
		d, err := time.ParseDuration(s)
		if err != nil {
			return reflect.Value{}, errors.New(`must be a duration with a unit, like "3s", "500ms" or "1m30s"`)
		}
		return reflect.ValueOf(d), nil
	case byteSizeType:
		b, err := ParseByteSize(s)
		if err != nil {
			return reflect.Value{}, errors.New(`must be a byte size like "1MiB", "512KiB" or a number of bytes`)
		}
		return reflect.ValueOf(b), nil
	}
	v := reflect.New(f.typ).Elem()
	switch f.typ.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return reflect.Value{}, errors.New("must be true or false")
		}
		v.SetBool(b)
	case reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return reflect.Value{}, errors.New("must be an integer")
		}
		v.SetInt(int64(n))
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return reflect.Value{}, errors.New("must be a number")
		}
		v.SetFloat(x)
	}
	return v, nil
}

// decodeStrings accepts a list of scalars or one comma-separated string
// (surrounding spaces trimmed, empty items dropped: "" is the empty list).
func decodeStrings(raw any) ([]string, error) {
	switch r := raw.(type) {
	case string:
		out := []string{}
		for _, p := range strings.Split(r, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case []any:
		out := make([]string, 0, len(r))
		for i, e := range r {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("item %d must be a single value, not a list or mapping", i)
			}
			out = append(out, strings.TrimSpace(s))
		}
		return out, nil
	}
	return nil, errors.New("must be a list")
}

var userKeys = []string{"username", "password", "roles"}

func decodeUsers(raw any) ([]User, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, errors.New("must be a list of {username, password, roles}")
	}
	out := make([]User, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("auth.users[%d] must be a mapping {username, password, roles}", i)
		}
		var u User
		for k, v := range m {
			switch k {
			case "username", "password":
				s := ""
				if v != nil {
					if s, ok = v.(string); !ok {
						return nil, fmt.Errorf("auth.users[%d].%s must be a single value", i, k)
					}
				}
				if k == "username" {
					u.Username = strings.TrimSpace(s)
				} else {
					u.Password = s
				}
			case "roles":
				if v != nil {
					roles, err := decodeStrings(v)
					if err != nil {
						return nil, fmt.Errorf("auth.users[%d].roles %w", i, err)
					}
					u.Roles = roles
				}
			default:
				return nil, fmt.Errorf("auth.users[%d]: unknown key %q%s", i, k, didYouMean(k, userKeys))
			}
		}
		out = append(out, u)
	}
	return out, nil
}

// showRaw renders a raw value for an error message; secrets are never shown.
func showRaw(f *field, raw any) string {
	if f.secret {
		return "(redacted)"
	}
	switch r := raw.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(r)
	}
	return fmt.Sprint(raw)
}
