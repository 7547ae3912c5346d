package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
)

// Load builds the configuration from four koanf layers, each overriding the
// one before it key by key: the default tags, the YAML file of --config FILE
// (or RSC_CONFIG), the RSC_* variables of environ (KEY=VALUE, as os.Environ
// returns them) and the flags in args (os.Args[1:]); then Validate runs.
// Every problem is reported at once, joined, naming the key and its source.
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

	l.layer(confmap.Provider(defaults(), "."), nil, func(string) string { return "default" })

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
	l.unknownKeys()
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
	}})
}

// splitList turns a comma-separated string into a list: surrounding spaces
// are trimmed and empty items dropped, so "" is the empty list (of any type).
func splitList(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to.Kind() != reflect.Slice || (to != reflect.TypeOf([]string(nil)) && data != "") {
		return data, nil
	}
	out := reflect.MakeSlice(to, 0, 0)
	for _, p := range strings.Split(data.(string), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = reflect.Append(out, reflect.ValueOf(p))
		}
	}
	return out.Interface(), nil
}
