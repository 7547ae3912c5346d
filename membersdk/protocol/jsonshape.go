package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// typeError turns encoding/json's wrong-type error into a message for the
// person who wrote the body: the JSON field (its path, e.g.
// "ownedShards.shardIndex"), the JSON shape it must have and the JSON kind
// that was sent — never a Go type name.
func typeError(e *json.UnmarshalTypeError) error {
	want, got := jsonShape(e.Type), e.Value
	if got == "bool" {
		got = "boolean" // encoding/json names the Go kind; JSON calls it boolean
	}
	if e.Field == "" {
		return fmt.Errorf("%w: the body must be %s, got JSON %s", ErrMalformed, want, got)
	}
	return fmt.Errorf("%w: field %q must be %s, got JSON %s", ErrMalformed, e.Field, want, got)
}

// jsonShape describes the JSON value that decodes into t.
func jsonShape(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a JSON integer (no fraction, no quotes)"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a JSON integer ≥ 0 (no fraction, no quotes)"
	case reflect.Float32, reflect.Float64:
		return "a JSON number"
	case reflect.String:
		return "a JSON string"
	case reflect.Slice, reflect.Array:
		return "a JSON array, each item " + jsonShape(t.Elem())
	case reflect.Struct:
		if names := jsonFieldNames(t); len(names) > 0 {
			return "a JSON object {" + strings.Join(names, ", ") + "}"
		}
		return "a JSON object"
	case reflect.Map:
		return "a JSON object"
	default:
		return "a JSON value"
	}
}

// jsonFieldNames lists the JSON names of t's fields, in order.
func jsonFieldNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, `"`+name+`": …`)
	}
	return out
}
