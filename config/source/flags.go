package source

import (
	"io"
	"reflect"
	"time"

	"github.com/spf13/pflag"
)

// FlagSet declares --config and one typed flag per key, named like the key
// (--http.addr, --redis.addrs, ...), with its value in def (a pointer to the
// schema's root struct holding the defaults) as its default. Secrets have no
// flag so they never show up in a process listing. Each flag's help is its
// help tag and its variable.
func (s *Schema) FlagSet(name string, def any) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.String("config", "", "YAML config file (also "+s.ConfigEnv+")")
	root := reflect.ValueOf(def).Elem()
	for _, st := range s.Settings {
		if st.Secret {
			continue
		}
		help := st.Help + " [" + st.Env + "]"
		switch p := root.FieldByIndex(st.Index).Addr().Interface().(type) {
		case *string:
			fs.StringVar(p, st.Key, *p, help)
		case *int:
			fs.IntVar(p, st.Key, *p, help)
		case *bool:
			fs.BoolVar(p, st.Key, *p, help)
		case *float64:
			fs.Float64Var(p, st.Key, *p, help)
		case *time.Duration:
			fs.DurationVar(p, st.Key, *p, help)
		case *[]string:
			fs.StringSliceVar(p, st.Key, *p, help)
		case pflag.Value: // ByteSize
			fs.Var(p, st.Key, help)
		default:
			panic("config: no flag type for " + st.Key)
		}
	}
	return fs
}
