package fieldfill

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Options say how leaves are filled.
type Options struct {
	// Unexported: set unexported fields too (reached through unsafe).
	Unexported bool
	// Special fills a leaf of a type the caller knows better (time.Time, a
	// duration in a wire unit) from its number n, and reports whether it did.
	Special func(v reflect.Value, n int) bool
}

// Filled returns a T with every field set, recursively, to a non-zero value
// taken from a counter: leaf k gets 2k, except the leaf numbered bump, which
// gets 2k+1 (so a bumped boolean flips). bump 0 changes nothing. paths names
// the leaves in order ("Type.Field[0].Sub"), so a test can say which one its
// code missed.
func Filled[T any](bump int, o Options) (T, []string) {
	var v T
	f := &filler{bump: bump, o: o}
	f.fill(reflect.ValueOf(&v).Elem(), reflect.TypeOf(v).Name())
	return v, f.paths
}

type filler struct {
	n, bump int
	o       Options
	paths   []string
}

func (f *filler) fill(v reflect.Value, path string) {
	if f.o.Special != nil && f.special(v, path) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), path)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fv, sf := v.Field(i), v.Type().Field(i)
			if !sf.IsExported() {
				if !f.o.Unexported {
					continue
				}
				fv = reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem()
			}
			f.fill(fv, path+"."+sf.Name)
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
		panic(fmt.Sprintf("fieldfill: no non-zero value for %s (%s): teach fill or Options.Special", path, v.Type()))
	}
}

// special lets Options.Special fill v; the leaf is numbered only if it did.
func (f *filler) special(v reflect.Value, path string) bool {
	n, paths := f.n, len(f.paths)
	if f.o.Special(v, f.next(path)) {
		return true
	}
	f.n, f.paths = n, f.paths[:paths]
	return false
}

// next numbers a leaf and returns its value.
func (f *filler) next(path string) int {
	f.n++
	f.paths = append(f.paths, path)
	if f.n == f.bump {
		return 2*f.n + 1
	}
	return 2 * f.n
}
