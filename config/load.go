package config

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
)

// ErrHelp is returned by Load when -h or --help was given; print Usage() and
// exit 0.
var ErrHelp = pflag.ErrHelp

// Load builds the configuration from four layers, each overriding the one
// before it key by key:
//
//  1. the built-in defaults (Default),
//  2. the YAML file named by --config FILE (or RSC_CONFIG),
//  3. RSC_* environment variables taken from environ (KEY=VALUE strings, as
//     os.Environ returns them),
//  4. command-line flags in args (without the program name, i.e. os.Args[1:]).
//
// Unknown YAML keys, unknown RSC_* variables, unknown flags and values of the
// wrong type are errors naming the key (or variable) and where it came from.
// The result is then checked with Validate; all problems are reported at
// once, joined.
func Load(args []string, environ []string) (Config, error) {
	fs, configFile := newFlagSet()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return Config{}, ErrHelp
		}
		return Config{}, fmt.Errorf("config: %w", err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("config: unexpected argument %q (settings are given as --key=value)", fs.Arg(0))
	}

	envFlat, envSrc, envFile, envErrs := parseEnv(environ)
	path := envFile
	if fs.Changed("config") {
		path = *configFile
	}

	k := koanf.New(".")
	src := map[string]string{} // key -> where its current value came from
	var errs []error

	load := func(flat map[string]any, source func(key string) string) {
		if err := k.Load(confmap.Provider(flat, "."), nil); err != nil {
			errs = append(errs, fmt.Errorf("config: %w", err)) // not reachable with confmap
			return
		}
		for key := range flat {
			src[key] = source(key)
		}
	}

	load(defaultsFlat(), func(string) string { return "default" })

	if path != "" {
		p := &yamlParser{path: path}
		if err := k.Load(file.Provider(path), p); err != nil {
			if p.parsed {
				errs = append(errs, err)
			} else {
				errs = append(errs, fmt.Errorf("config: reading config file: %w", err))
			}
		} else {
			for key, line := range p.lines {
				src[key] = fmt.Sprintf("file %s line %d", path, line)
			}
		}
	}

	errs = append(errs, envErrs...)
	load(envFlat, func(key string) string { return "env " + envSrc[key] })

	flagFlat := map[string]any{}
	fs.Visit(func(fl *pflag.Flag) {
		f, ok := fieldByKey[fl.Name]
		if !ok {
			return // --config
		}
		if f.typ == stringsType {
			v, _ := fs.GetStringSlice(fl.Name)
			flagFlat[f.key] = toAnySlice(v)
		} else {
			flagFlat[f.key] = fl.Value.String()
		}
	})
	load(flagFlat, func(key string) string { return "flag --" + key })

	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}

	var cfg Config
	root := reflect.ValueOf(&cfg).Elem()
	for _, f := range fields {
		raw := k.Get(f.key)
		v, err := decode(f, raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("config: %s = %s (from %s): %w", f.key, showRaw(f, raw), src[f.key], err))
			continue
		}
		root.FieldByIndex(f.index).Set(v)
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	if cfg.Cluster.NodeID == "" {
		cfg.Cluster.NodeID = defaultNodeID()
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Usage returns the --help text: every flag with its default.
func Usage() string {
	fs, _ := newFlagSet()
	return "Flags (each overrides the YAML file and RSC_* environment; secrets and users only via file or env):\n" +
		fs.FlagUsages()
}

// newFlagSet declares --config and one flag per key, named like the key
// (--http.addr, --redis.addrs, ...). Secrets and users have no flag so they
// never show up in a process listing.
func newFlagSet() (*pflag.FlagSet, *string) {
	fs := pflag.NewFlagSet("coordinator", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	configFile := fs.String("config", "", "YAML config file (also "+EnvConfigFile+")")
	def := Default()
	root := reflect.ValueOf(def)
	for _, f := range fields {
		if f.secret {
			continue
		}
		help := f.help + " [" + f.env + "]"
		dv := root.FieldByIndex(f.index)
		switch {
		case f.typ == stringsType:
			fs.StringSlice(f.key, dv.Interface().([]string), help)
		case f.typ.Kind() == reflect.Bool:
			fs.Bool(f.key, dv.Bool(), help)
		default:
			def := formatScalar(dv)
			if f.key == "cluster.node-id" {
				def = "" // hostname-derived; shown in the help text
			}
			fs.Var(&textFlag{typ: f.typeName(), val: def}, f.key, help)
		}
	}
	return fs, configFile
}

// textFlag keeps the flag's text; it is decoded (and errors reported) with
// the other layers.
type textFlag struct{ typ, val string }

func (t *textFlag) String() string     { return t.val }
func (t *textFlag) Set(s string) error { t.val = s; return nil }
func (t *textFlag) Type() string       { return t.typ }
