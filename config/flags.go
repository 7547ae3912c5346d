package config

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// ErrHelp is returned by Load when -h or --help was given; print Usage() and
// exit 0.
var ErrHelp = pflag.ErrHelp

// Usage returns the --help text: every flag with its help text, environment
// variable and default.
func Usage() string {
	fs, _ := newFlagSet()
	var b strings.Builder
	b.WriteString("Flags (each overrides the YAML file and RSC_* environment):\n" + fs.FlagUsages())
	b.WriteString("\nSettings without a flag, so they never show in a process listing (file or environment only):\n")
	for _, s := range settings {
		if s.secret {
			fmt.Fprintf(&b, "      %-44s %s [%s]\n", s.key, s.help, s.env)
		}
	}
	return b.String()
}

// newFlagSet declares --config and one typed flag per key, named like the
// key (--http.addr, --redis.addrs, ...), with the default as its default.
// Secrets and users have no flag so they never show up in a process listing.
func newFlagSet() (*pflag.FlagSet, *string) {
	fs := pflag.NewFlagSet("coordinator", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	configFile := fs.String("config", "", "YAML config file (also "+EnvConfigFile+")")
	def := Default()
	def.Cluster.NodeID = "" // derived from the hostname, as its help says
	root := reflect.ValueOf(&def).Elem()
	for _, s := range settings {
		if s.secret {
			continue
		}
		help := s.help + " [" + s.env + "]"
		switch p := root.FieldByIndex(s.index).Addr().Interface().(type) {
		case *string:
			fs.StringVar(p, s.key, *p, help)
		case *int:
			fs.IntVar(p, s.key, *p, help)
		case *bool:
			fs.BoolVar(p, s.key, *p, help)
		case *float64:
			fs.Float64Var(p, s.key, *p, help)
		case *time.Duration:
			fs.DurationVar(p, s.key, *p, help)
		case *[]string:
			fs.StringSliceVar(p, s.key, *p, help)
		case pflag.Value: // ByteSize
			fs.Var(p, s.key, help)
		default:
			panic("config: no flag type for " + s.key)
		}
	}
	return fs, configFile
}
