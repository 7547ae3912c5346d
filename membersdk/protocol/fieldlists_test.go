package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The heartbeat's hand-tuned decoder (decode_fast.go), its reference path
// (heartbeatWire, decode.go) and the response encoder (encode.go) each list
// the fields of a wire type by hand. These tests fail when a field is added
// to the type and not to the list.

// wireNames returns the JSON names of t's fields that are on the wire.
func wireNames(t reflect.Type) []string {
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
		out = append(out, name)
	}
	return out
}

// fillAll sets every wire field of the value v points to, recursively, to a
// non-zero value the fast decoder accepts: integers and strings from a
// counter, slices of one filled element, pointers to a filled value.
func fillAll(v reflect.Value, n *int) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), n)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.IsExported() && f.Tag.Get("json") != "-" {
				fillAll(v.Field(i), n)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillAll(v.Index(0), n)
	case reflect.String:
		*n++
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int64:
		*n++
		v.SetInt(int64(*n))
	case reflect.Bool:
		v.SetBool(true)
	default:
		panic(fmt.Sprintf("fillAll: no non-zero value for a %s: teach fillAll", v.Type()))
	}
}

// The name lists of decode_fast.go hold exactly the JSON names of their
// types: a name missing from one would let a case-folded spelling of the
// field ("MEMBERNAME") be skipped as unknown instead of handed to the
// reference path, which decodes it.
func TestFastDecoderNameListsNameEveryField(t *testing.T) {
	for _, c := range []struct {
		list string
		got  []string
		typ  reflect.Type
	}{
		{"heartbeatNames", heartbeatNames, reflect.TypeOf(HeartbeatRequest{})},
		{"capacityNames", capacityNames, reflect.TypeOf(Capacity{})},
		{"revokingNames", revokingNames, reflect.TypeOf(RevokingShard{})},
		{"progressNames", progressNames, reflect.TypeOf(ShardProgress{})},
	} {
		want := wireNames(c.typ)
		require.ElementsMatch(t, want, c.got, "decode_fast.go %s must list every JSON field of %s", c.list, c.typ)
	}
	// shardID lists its one name inline.
	require.Equal(t, []string{"shardIndex"}, wireNames(reflect.TypeOf(ShardID{})), "decode_fast.go shardID knows only shardIndex")
}

// fullHeartbeat is a heartbeat with every wire field set, nested ones too.
func fullHeartbeat(t *testing.T) (HeartbeatRequest, []byte) {
	var req HeartbeatRequest
	n := 0
	fillAll(reflect.ValueOf(&req).Elem(), &n)
	body, err := json.Marshal(req)
	require.NoError(t, err)
	return req, body
}

// Both decoding paths give back every field of a heartbeat with all of them
// set: a field missing from the fast decoder's switches, from heartbeatWire
// or from the copy out of it would come back zero.
func TestHeartbeatDecodersKeepEveryField(t *testing.T) {
	req, body := fullHeartbeat(t)
	fast, ok := decodeHeartbeatFast(body)
	require.True(t, ok, "the fast path must decode an ordinary body with every field: %s", body)
	require.Equal(t, req, fast, "decode_fast.go drops a field of %s", body)
	ref, err := decodeHeartbeatReference(body)
	require.NoError(t, err)
	require.Equal(t, req, ref, "decode.go (heartbeatWire) drops a field of %s", body)

	// heartbeatWire mirrors HeartbeatRequest name for name.
	require.Equal(t, wireNames(reflect.TypeOf(HeartbeatRequest{})), wireNames(reflect.TypeOf(heartbeatWire{})), "heartbeatWire")
}

// AppendHeartbeatResponse writes every field: with all of them set (so that
// omitempty hides none) it still gives what encoding/json gives.
func TestAppendHeartbeatResponseWritesEveryField(t *testing.T) {
	var r HeartbeatResponse
	n := 0
	fillAll(reflect.ValueOf(&r).Elem(), &n)
	want, err := json.Marshal(r)
	require.NoError(t, err)
	require.Equal(t, string(want), string(AppendHeartbeatResponse(nil, &r)))
	var back map[string]any
	require.NoError(t, json.Unmarshal(want, &back))
	keys := make([]string, 0, len(back))
	for k := range back {
		keys = append(keys, k)
	}
	require.True(t, slices.Equal(sorted(wireNames(reflect.TypeOf(r))), sorted(keys)), "every field set: %s", want)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
