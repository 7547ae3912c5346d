package config

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
)

// Load builds the configuration from four koanf layers, each overriding the
// one before it key by key:
//
//  1. the built-in defaults (Default), through the confmap provider;
//  2. the YAML file named by --config FILE (or RSC_CONFIG), through the file
//     provider and yamlText;
//  3. RSC_* variables taken from environ (KEY=VALUE strings, as os.Environ
//     returns them), through the env provider;
//  4. command-line flags in args (os.Args[1:]), through the posflag provider.
//
// The merged tree is decoded by koanf's UnmarshalWithConf (mapstructure, with
// ErrorUnused for unknown keys and hooks for durations, byte sizes and
// comma-separated lists). Unknown keys, unknown RSC_* variables that look
// like ours (see envKey), unknown flags and values of the wrong type are
// errors naming the key and where its value came from; then Validate runs.
// All problems are reported at once, joined.
func Load(args, environ []string) (Config, error) {
	cfg, _, err := LoadWithWarnings(args, environ)
	return cfg, err
}

// LoadWithWarnings is Load that also returns notices to log at start: RSC_*
// variables that name no setting and are ignored.
func LoadWithWarnings(args, environ []string) (Config, []string, error) {
	fs, configFile := newFlagSet()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return Config{}, nil, ErrHelp
		}
		return Config{}, nil, fmt.Errorf("config: %w", err)
	}
	if fs.NArg() > 0 {
		return Config{}, nil, fmt.Errorf("config: unexpected argument %q (settings are given as --key=value)", fs.Arg(0))
	}
	l := &loader{k: koanf.New("."), src: map[string]string{}}

	defaults, def := map[string]any{}, reflect.ValueOf(Default())
	for _, s := range settings {
		defaults[s.key] = def.FieldByIndex(s.index).Interface()
	}
	l.layer(confmap.Provider(defaults, "."), nil, func(string) string { return "default" })

	path := *configFile
	if !fs.Changed("config") {
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, EnvConfigFile+"="); ok {
				path = v
			}
		}
	}
	if path != "" {
		p := &yamlText{lines: map[string]int{}}
		where := func(key string) string { return fmt.Sprintf("file %s line %d", path, p.lines[key]) }
		if err := l.layer(file.Provider(path), p, where); err != nil && p.parsed {
			l.errs = append(l.errs, fmt.Errorf("config: file %s: %w", path, err))
		} else if err != nil {
			l.errs = append(l.errs, fmt.Errorf("config: reading config file: %w", err))
		}
		for key := range p.lines {
			l.src[key] = where(key) // also inside lists: auth.users[0].password
		}
	}

	l.layer(env.Provider(".", env.Opt{Prefix: EnvPrefix, TransformFunc: l.envKey, EnvironFunc: func() []string { return environ }}),
		nil, func(key string) string { return "env " + byKey[key].env })

	l.layer(posflag.ProviderWithFlag(fs, ".", l.k, func(f *pflag.Flag) (string, any) {
		if f.Name == "config" || !f.Changed { // flag defaults are only for --help
			return "", nil
		}
		return f.Name, posflag.FlagVal(fs, f)
	}), nil, func(key string) string { return "flag --" + key })

	var cfg Config
	if err := decode(l.k, &cfg); err != nil {
		l.explain(err)
	}
	if len(l.errs) > 0 {
		return Config{}, nil, errors.Join(l.errs...)
	}
	if cfg.Cluster.NodeID == "" {
		cfg.Cluster.NodeID = defaultNodeID()
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, nil, err
	}
	return cfg, l.warnings, nil
}

// loader carries one Load: the merged layers, where each key was last set,
// and the problems found so far.
type loader struct {
	k        *koanf.Koanf
	src      map[string]string // key -> "default", "file F line N", "env RSC_X", "flag --x"
	errs     []error
	warnings []string
}

// layer loads one provider on its own, notes the source of each key it sets
// and merges it over the layers below.
func (l *loader) layer(p koanf.Provider, pa koanf.Parser, source func(key string) string) error {
	layer := koanf.New(".")
	if err := layer.Load(p, pa); err != nil {
		return err
	}
	for _, key := range layer.Keys() {
		for old := range l.src {
			if strings.HasPrefix(old, key+"[") {
				delete(l.src, old) // a list replaced as a whole
			}
		}
		l.src[key] = source(key)
	}
	return l.k.Merge(layer)
}

// decode unmarshals the merged tree into cfg with mapstructure.
func decode(k *koanf.Koanf, cfg *Config) error {
	return k.UnmarshalWithConf("", cfg, koanf.UnmarshalConf{DecoderConfig: &mapstructure.DecoderConfig{
		DecodeHook: mapstructure.ComposeDecodeHookFunc(
			mapstructure.StringToTimeDurationHookFunc(), // "1m30s"
			mapstructure.TextUnmarshallerHookFunc(),     // ByteSize: "1MiB"
			splitList,                                   // "a:6379, b:6379"
		),
		WeaklyTypedInput: true, // "8" -> 8, "true" -> true: file and env values are text
		ErrorUnused:      true, // an unknown key is an error, not ignored
	}})
}

// splitList turns a comma-separated string into a list: surrounding spaces
// are trimmed and empty items dropped, so "" is the empty list.
func splitList(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to != reflect.TypeOf([]string(nil)) {
		return data, nil
	}
	out := []string{}
	for _, p := range strings.Split(data.(string), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// explain turns mapstructure's error tree into one error per problem, each
// naming the key, its value (never a secret) and where the value came from.
func (l *loader) explain(err error) {
	switch e := err.(type) {
	case *mapstructure.DecodeError:
		l.errs = append(l.errs, l.describe(e.Name(), e.Unwrap())...)
	case interface{ Unwrap() []error }:
		for _, e := range e.Unwrap() {
			l.explain(e)
		}
	case interface{ Unwrap() error }:
		l.explain(e.Unwrap())
	default:
		l.errs = append(l.errs, fmt.Errorf("config: %w", err))
	}
}

func (l *loader) describe(name string, err error) []error {
	if rest, ok := strings.CutPrefix(err.Error(), "has invalid keys: "); ok { // ErrorUnused
		var out []error
		for _, k := range strings.Split(rest, ", ") {
			key := strings.TrimPrefix(name+"."+k, ".")
			hint := didYouMean(key, keysAndSections)
			if strings.HasSuffix(name, "]") { // inside a list of users
				hint = didYouMean(k, userKeys)
			}
			out = append(out, fmt.Errorf("config: %s: unknown key %q%s", l.source(key), key, hint))
		}
		return out
	}
	problem := err.Error()
	if s, ok := byKey[name]; ok {
		problem = "must be " + kindOf(s.typ)
	} else if sections[name] {
		problem = "is a section and must be a mapping"
	}
	return []error{fmt.Errorf("config: %s = %s (from %s): %s", name, l.show(name), l.source(name), problem)}
}

// source is where the value at name (or the list or section holding it) came from.
func (l *loader) source(name string) string {
	for {
		if s, ok := l.src[name]; ok {
			return s
		}
		i := strings.LastIndexAny(name, ".[")
		if i < 0 {
			return "default"
		}
		name = name[:i]
	}
}

func (l *loader) show(name string) string {
	if s, ok := byKey[name]; (ok && s.secret) || strings.HasPrefix(name, "auth.users") {
		return "(redacted)"
	}
	switch v := l.k.Get(name).(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	default:
		return fmt.Sprint(v)
	}
}

// kindOf says what a key of type t takes, for errors.
func kindOf(t reflect.Type) string {
	switch t {
	case reflect.TypeOf(time.Duration(0)):
		return `a duration with a unit, like "3s", "500ms" or "1m30s"`
	case reflect.TypeOf(ByteSize(0)):
		return `a byte size like "1MiB", "512KiB" or a number of bytes`
	case usersType:
		return "a list of {username, password, roles}"
	}
	switch t.Kind() {
	case reflect.Int:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list, or one comma-separated string"
	}
	return "a single " + t.Kind().String() + " value, not a list or mapping"
}
