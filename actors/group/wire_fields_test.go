package group

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/internal/fieldfill"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// toCore and toWire (heartbeat.go) copy a heartbeat between its wire and its rules shape field
// by field. These tests set every field, change each in turn, and fail when a field added to
// a type is not carried across (or listed below as deliberately left out).

// filledLeaves returns a T with every exported field set, the leaf numbered bump changed, and the
// leaves' paths (internal/fieldfill); durations are whole milliseconds, the wire's unit.
func filledLeaves[T any](bump int) (T, []string) {
	return fieldfill.Filled[T](bump, fieldfill.Options{Special: func(v reflect.Value, n int) bool {
		if v.Type() != reflect.TypeOf(time.Duration(0)) {
			return false
		}
		v.SetInt(int64(time.Duration(n) * time.Millisecond))
		return true
	}})
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
	core := func(req protocol.HeartbeatRequest) model.Heartbeat {
		return toCore(&groupmsg.HeartbeatRequest{PathMemberID: "path", Request: req})
	}
	want := checkCarried(t, core, notForTheRules, "toCore", "notForTheRules")
	// Every field of the rules' heartbeat is filled.
	v := reflect.ValueOf(want)
	for i := 0; i < v.NumField(); i++ {
		require.False(t, v.Field(i).IsZero(), "toCore leaves model.Heartbeat.%s unset", v.Type().Field(i).Name)
	}
}

// notOnTheWire are the Response fields toWire deliberately leaves out.
var notOnTheWire = []string{
	// Limit and IDInUse tell the shell which metric to count and what to log (evaluate,
	// refusalLog.note); the member learns it from the status and the message.
	"Response.Limit", "Response.IDInUse",
}

func TestToWireCarriesEveryResponseField(t *testing.T) {
	checkCarried(t, toWire, notOnTheWire, "toWire", "notOnTheWire")
}

// checkCarried changes each leaf of a filled T in turn and fails unless conv's
// result changes with it, or the leaf is listed in skip (named listName) and
// the result does not change. It returns conv of the unchanged value.
func checkCarried[T, U any](t *testing.T, conv func(T) U, skip []string, what, listName string) U {
	t.Helper()
	base, paths := filledLeaves[T](0)
	want := conv(base)
	for i, p := range paths {
		v, _ := filledLeaves[T](i + 1)
		got := conv(v)
		if slices.Contains(skip, p) {
			require.Equal(t, want, got, "%s is listed as left out, yet %s carries it", p, what)
			continue
		}
		require.NotEqual(t, want, got, "%s (heartbeat.go) drops %s: carry it, or list it in %s", what, p, listName)
	}
	return want
}
