package protocol

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requestBodies are every request body the API decodes, with the decoder
// its route uses. A new request type belongs here.
var requestBodies = map[string]struct {
	typ    reflect.Type
	decode func([]byte) error
}{
	"HeartbeatRequest":    {reflect.TypeOf(HeartbeatRequest{}), func(b []byte) error { _, err := DecodeHeartbeat(b); return err }},
	"CreateStreamRequest": {reflect.TypeOf(CreateStreamRequest{}), decodeInto[CreateStreamRequest]},
	"CreateGroupRequest":  {reflect.TypeOf(CreateGroupRequest{}), decodeInto[CreateGroupRequest]},
	"DeleteGroupRequest":  {reflect.TypeOf(DeleteGroupRequest{}), decodeInto[DeleteGroupRequest]},
	"ScaleRequest":        {reflect.TypeOf(ScaleRequest{}), decodeInto[ScaleRequest]},
	"RollbackRequest":     {reflect.TypeOf(RollbackRequest{}), decodeInto[RollbackRequest]},
	"LoginRequest":        {reflect.TypeOf(LoginRequest{}), decodeInto[LoginRequest]},
}

func decodeInto[T any](b []byte) error {
	var v T
	return DecodeJSON(b, &v)
}

// goTypeName matches what must never reach a client: Go type names.
var goTypeName = regexp.MustCompile(`protocol\.|\b(u?int(8|16|32|64)?|float(32|64)|bool|struct|interface)\b|\[\]|map\[|\*|Go value`)

// wrongField is one field of a request body set to a JSON value of the
// wrong kind: body is the request with only that path present.
type wrongField struct {
	path      string // JSON path as the error names it: "ownedShards.shardIndex"
	body      string
	wantShape string // a word of the expected JSON shape
	sent      string // JSON kind sent
}

// wrongFields walks t's fields (through objects and arrays of objects) and
// gives, for every field at every depth, a body with that field mistyped.
func wrongFields(t reflect.Type) []wrongField {
	var out []wrongField
	var walk func(t reflect.Type, path string, wrap func(string) string)
	walk = func(t reflect.Type, path string, wrap func(string) string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			p := strings.TrimPrefix(path+"."+name, ".")
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			w := func(v string) string { return wrap(fmt.Sprintf(`{%q:%s}`, name, v)) }
			bad, sent, shape := `true`, "boolean", ""
			switch ft.Kind() {
			case reflect.Struct:
				shape = "JSON object"
			case reflect.Slice:
				shape = "JSON array"
			case reflect.String:
				shape = "JSON string"
			case reflect.Bool:
				bad, sent, shape = `"yes"`, "string", "true or false"
			default:
				bad, sent, shape = `"1"`, "string", "JSON integer"
			}
			out = append(out, wrongField{path: p, body: w(bad), wantShape: shape, sent: sent})
			switch {
			case ft.Kind() == reflect.Struct:
				walk(ft, p, w)
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), p, func(v string) string { return w("[" + v + "]") })
			}
		}
	}
	walk(t, "", func(v string) string { return v })
	return out
}

// Every field of every request body, mistyped, is refused with an error
// naming the JSON field and the JSON shape expected, never a Go type.
func TestWrongTypeErrorsNameTheJSONFieldAndShape(t *testing.T) {
	n := 0
	for name, rb := range requestBodies {
		for _, wf := range wrongFields(rb.typ) {
			t.Run(name+"/"+wf.path, func(t *testing.T) {
				err := rb.decode([]byte(wf.body))
				require.ErrorIs(t, err, ErrMalformed, wf.body)
				msg := err.Error()
				require.Contains(t, msg, fmt.Sprintf("field %q must be ", wf.path), wf.body)
				require.Contains(t, msg, wf.wantShape, wf.body)
				require.Contains(t, msg, "got JSON "+wf.sent, wf.body)
				require.NotRegexp(t, goTypeName, msg, wf.body)
			})
			n++
		}
	}
	require.Greater(t, n, 30, "the walk found the request fields")
}

func TestWrongTypeErrorForCapacityNamesItsFields(t *testing.T) {
	body := strings.Replace(validHeartbeat, `"runtimeConsumerCapacity":{"runtimeMaxConcurrency":4,"availableConcurrency":4}`, `"runtimeConsumerCapacity":1`, 1)
	_, err := DecodeHeartbeat([]byte(body))
	require.ErrorIs(t, err, ErrMalformed)
	require.Equal(t, `protocol: malformed request: field "runtimeConsumerCapacity" must be a JSON object {"runtimeMaxConcurrency": …, "availableConcurrency": …}, got JSON number`, err.Error())
}

func TestWrongTypeErrorForTheWholeBody(t *testing.T) {
	for _, body := range []string{`[1,2]`, `"x"`, `3`} {
		err := DecodeJSON([]byte(body), &ScaleRequest{})
		require.ErrorIs(t, err, ErrMalformed)
		require.Contains(t, err.Error(), `the body must be a JSON object {"targetShardCount": …`)
		require.NotRegexp(t, goTypeName, err.Error())
		_, err = DecodeHeartbeat([]byte(body))
		require.Contains(t, err.Error(), `the body must be a JSON object {"protocolVersion": …`)
		require.NotRegexp(t, goTypeName, err.Error())
	}
}

func TestWrongTypeErrorForAFractionInAnInteger(t *testing.T) {
	body := strings.Replace(validHeartbeat, `"memberEpoch":0`, `"memberEpoch":1.5`, 1)
	_, err := DecodeHeartbeat([]byte(body))
	require.ErrorContains(t, err, `field "memberEpoch" must be a JSON integer (no fraction, no quotes), got JSON number 1.5`)
}
