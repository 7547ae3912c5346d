package groupstate

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// durableEqual, deepCopy (member.go) and describeDecision (steady_test.go) name the fields of
// Member, Response and Change one by one. These tests set every field, one at a time, and fail
// when a field added to a type is missing from one of them.

// filler sets every field of a value, recursively and unexported ones included, to a non-zero
// value taken from a counter; the leaf numbered bump gets a different value. It records the
// path of every leaf it sets, so that a test can say which field it missed.
type filler struct {
	n     int
	bump  int
	paths []string
}

func (f *filler) fill(v reflect.Value, path string) {
	if v.Type() == reflect.TypeOf(time.Time{}) {
		v.Set(reflect.ValueOf(t0.Add(time.Duration(f.next(path)) * time.Second)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), path)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fv := v.Field(i)
			if !fv.CanSet() { // unexported: reach it all the same
				fv = reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem()
			}
			f.fill(fv, path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		f.fill(v.Index(0), path+"[0]")
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.next(path)))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(f.next(path)))
	case reflect.Float64:
		v.SetFloat(float64(f.next(path)))
	case reflect.Bool:
		v.SetBool(f.next(path)%2 == 0)
	default:
		panic(fmt.Sprintf("filler: no non-zero value for %s (%s): teach fill", path, v.Type()))
	}
}

// next numbers a leaf and returns its value: twice its number, plus one when bumped (so a
// bumped boolean flips).
func (f *filler) next(path string) int {
	f.n++
	f.paths = append(f.paths, path)
	if f.n == f.bump {
		return 2*f.n + 1
	}
	return 2 * f.n
}

// filled returns a T with every field set, the leaf numbered bump changed, and the leaves' paths.
func filled[T any](bump int) (T, []string) {
	var v T
	f := &filler{bump: bump}
	f.fill(reflect.ValueOf(&v).Elem(), reflect.TypeOf(v).Name())
	return v, f.paths
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
	base, paths := filled[Member](0)
	require.True(t, durableEqual(&base, &base))
	for i, p := range paths {
		m, _ := filled[Member](i + 1)
		if slices.Contains(notDurable, p) {
			require.True(t, durableEqual(&base, &m), "%s is listed as not durable, yet durableEqual compares it", p)
			continue
		}
		require.False(t, durableEqual(&base, &m), "durableEqual (member.go) misses %s: compare it, or list it in notDurable", p)
	}
	// The volatile fields are exactly those JSON leaves out.
	typ := reflect.TypeOf(Member{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if f.Tag.Get("json") == "-" {
			require.Contains(t, notDurable, "Member."+f.Name, "%s is not persisted", f.Name)
		}
	}
}

func TestDeepCopyCopiesEveryField(t *testing.T) {
	m, _ := filled[Member](0)
	c := m.deepCopy()
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
