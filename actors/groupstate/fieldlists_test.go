package groupstate

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/internal/fieldfill"
)

// durableEqual, deepCopy (member.go) and describeDecision (steady_test.go) name the fields of
// Member, Response and Change one by one. These tests set every field, one at a time, and fail
// when a field added to a type is missing from one of them.

// filled returns a Member, Response or Decision with every field (unexported ones included) set,
// the leaf numbered bump changed, and the leaves' paths (internal/fieldfill); times count from t0.
func filled[T any](bump int) (T, []string) {
	return fieldfill.Filled[T](bump, fieldfill.Options{Unexported: true, Special: func(v reflect.Value, n int) bool {
		if v.Type() != reflect.TypeOf(time.Time{}) {
			return false
		}
		v.Set(reflect.ValueOf(t0.Add(time.Duration(n) * time.Second)))
		return true
	}})
}

// notDurable are the Member fields durableEqual deliberately ignores: a change to only these is
// not worth a store write.
var notDurable = []string{
	// Capacity is informational and fluctuates with in-flight work (SPEC §3 inv. 5); it is
	// persisted with the next durable change.
	"Member.Capacity.MaxConcurrency", "Member.Capacity.Available",
	// Volatile (json:"-"): rebuilt by Restore, never persisted.
	"Member.LastHeartbeat", "Member.LeaseDeadline", "Member.RevokeDeadline",
}

func TestDurableEqualComparesEveryDurableField(t *testing.T) {
	base, paths := filled[model.Member](0)
	require.True(t, durableEqual(&base, &base))
	for i, p := range paths {
		m, _ := filled[model.Member](i + 1)
		if slices.Contains(notDurable, p) {
			require.True(t, durableEqual(&base, &m), "%s is listed as not durable, yet durableEqual compares it", p)
			continue
		}
		require.False(t, durableEqual(&base, &m), "durableEqual (member.go) misses %s: compare it, or list it in notDurable", p)
	}
	// The volatile fields are exactly those JSON leaves out.
	typ := reflect.TypeOf(model.Member{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Tag.Get("json") == "-" {
			require.Contains(t, notDurable, "Member."+f.Name, "%s is not persisted", f.Name)
		}
	}
}

func TestDeepCopyCopiesEveryField(t *testing.T) {
	m, _ := filled[model.Member](0)
	c := deepCopy(m)
	require.Equal(t, m, c)
	mv, cv := reflect.ValueOf(m), reflect.ValueOf(c)
	for i := 0; i < mv.NumField(); i++ {
		switch mv.Field(i).Kind() {
		case reflect.Slice, reflect.Map, reflect.Pointer:
			require.NotEqual(t, mv.Field(i).Pointer(), cv.Field(i).Pointer(),
				"deepCopy (member.go) shares Member.%s with the original: clone it", mv.Type().Field(i).Name)
		}
	}
}

func TestDescribeDecisionShowsEveryField(t *testing.T) {
	base, paths := filled[Decision](0)
	want := describeDecision(base)
	for i, p := range paths {
		d, _ := filled[Decision](i + 1)
		require.NotEqual(t, want, describeDecision(d), "describeDecision (steady_test.go) does not show %s", p)
	}
	require.True(t, strings.HasSuffix(describeDecision(Decision{}), "change=nil"))
}
