package group

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// toCore and toWire (heartbeat.go) copy a heartbeat between its wire and its rules shape field
// by field. These tests set every field, change each in turn, and fail when a field added to
// a type is not carried across (or listed below as deliberately left out).

// leafFiller sets every exported field of a value, recursively, to a non-zero value from a
// counter; the leaf numbered bump gets a different one. paths names the leaves in order.
type leafFiller struct {
	n, bump int
	paths   []string
}

func (f *leafFiller) fill(v reflect.Value, path string) {
	if v.Type() == reflect.TypeOf(time.Duration(0)) { // whole milliseconds: the wire's unit
		v.SetInt(int64(time.Duration(f.next(path)) * time.Millisecond))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), path)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		f.fill(v.Index(0), path+"[0]")
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.next(path)))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(f.next(path)))
	case reflect.Bool:
		v.SetBool(f.next(path)%2 == 0)
	default:
		panic(fmt.Sprintf("leafFiller: no non-zero value for %s (%s): teach fill", path, v.Type()))
	}
}

// next returns twice the leaf's number, plus one when it is the bumped leaf.
func (f *leafFiller) next(path string) int {
	f.n++
	f.paths = append(f.paths, path)
	if f.n == f.bump {
		return 2*f.n + 1
	}
	return 2 * f.n
}

func filledLeaves[T any](bump int) (T, []string) {
	var v T
	f := &leafFiller{bump: bump}
	f.fill(reflect.ValueOf(&v).Elem(), reflect.TypeOf(v).Name())
	return v, f.paths
}

// notForTheRules are the request fields toCore deliberately leaves out.
var notForTheRules = []string{
	// Progress feeds the consumption view (evaluate keeps it per member), never ownership.
	"HeartbeatRequest.ShardProgress[0].Shard.ShardIndex", "HeartbeatRequest.ShardProgress[0].StreamKey",
	"HeartbeatRequest.ShardProgress[0].LastDeliveredID", "HeartbeatRequest.ShardProgress[0].LastAckedID",
	"HeartbeatRequest.ShardProgress[0].PendingCount", "HeartbeatRequest.ShardProgress[0].UpdatedAt",
	// When a revoking shard was last acknowledged is informational (the in-flight view).
	"HeartbeatRequest.RevokingShards[0].AckedAt",
}

func TestToCoreCarriesEveryRequestField(t *testing.T) {
	core := func(req protocol.HeartbeatRequest) groupstate.Heartbeat {
		return toCore(&HeartbeatRequest{PathMemberID: "path", Request: req})
	}
	base, paths := filledLeaves[protocol.HeartbeatRequest](0)
	want := core(base)
	for i, p := range paths {
		req, _ := filledLeaves[protocol.HeartbeatRequest](i + 1)
		got := core(req)
		if slices.Contains(notForTheRules, p) {
			require.Equal(t, want, got, "%s is listed as left out, yet toCore carries it", p)
			continue
		}
		require.NotEqual(t, want, got, "toCore (heartbeat.go) drops %s: carry it, or list it in notForTheRules", p)
	}
	// Every field of the rules' heartbeat is filled.
	v := reflect.ValueOf(want)
	for i := 0; i < v.NumField(); i++ {
		require.False(t, v.Field(i).IsZero(), "toCore leaves groupstate.Heartbeat.%s unset", v.Type().Field(i).Name)
	}
}

// notOnTheWire are the Response fields toWire deliberately leaves out.
var notOnTheWire = []string{
	// Limit and IDInUse tell the shell which metric to count and what to log (evaluate,
	// noteRefusal); the member learns it from the status and the message.
	"Response.Limit", "Response.IDInUse",
}

func TestToWireCarriesEveryResponseField(t *testing.T) {
	base, paths := filledLeaves[groupstate.Response](0)
	want := toWire(base)
	for i, p := range paths {
		r, _ := filledLeaves[groupstate.Response](i + 1)
		got := toWire(r)
		if slices.Contains(notOnTheWire, p) {
			require.Equal(t, want, got, "%s is listed as left out, yet toWire carries it", p)
			continue
		}
		require.NotEqual(t, want, got, "toWire (heartbeat.go) drops %s: carry it, or list it in notOnTheWire", p)
	}
}
