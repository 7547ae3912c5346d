package source

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

// Read merges four koanf layers into out (a pointer to the schema's root
// struct), each overriding the one before it key by key: the default tags,
// the YAML file of --config FILE (or the ConfigEnv variable), the variables
// of environ (KEY=VALUE, as os.Environ returns them) and the flags of fs,
// already parsed. Every problem is returned at once, joined, naming the key
// and its source; warnings are variables with the prefix that name no
// setting. ignoreEnv names variables with the prefix to pass over silently.
func (s *Schema) Read(out any, fs *pflag.FlagSet, environ []string, ignoreEnv func(string) bool) ([]string, error) {
	l := &loader{s: s, ignoreEnv: ignoreEnv, k: koanf.New("."), src: map[string]string{}}

	l.layer(confmap.Provider(s.Defaults(), "."), nil, func(string) string { return "default" })

	path, _ := fs.GetString("config")
	if !fs.Changed("config") {
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, s.ConfigEnv+"="); ok {
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

	l.layer(env.Provider(".", env.Opt{Prefix: s.EnvPrefix, TransformFunc: l.envKey, EnvironFunc: func() []string { return environ }}),
		nil, func(key string) string { return "env " + s.ByKey[key].Env })

	l.layer(posflag.ProviderWithFlag(fs, ".", l.k, func(f *pflag.Flag) (string, any) {
		if f.Name == "config" || !f.Changed { // flag defaults are only for --help
			return "", nil
		}
		return f.Name, posflag.FlagVal(fs, f)
	}), nil, func(key string) string { return "flag --" + key })

	if err := decode(l.k, out); err != nil {
		l.explain(err)
	}
	l.unknownKeys()
	return l.warnings, errors.Join(l.errs...)
}

// loader carries one Load: the merged layers, where each key was last set,
// and the problems found so far.
type loader struct {
	s         *Schema
	ignoreEnv func(name string) bool
	k         *koanf.Koanf
	src       map[string]string // key -> "default", "file F line N", "env RSC_X", "flag --x"
	errs      []error
	warnings  []string
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
func decode(k *koanf.Koanf, cfg any) error {
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

// DecodeDefaults decodes the default tags into out (a pointer to the root
// struct) as Read decodes its first layer.
func (s *Schema) DecodeDefaults(out any) error {
	k := koanf.New(".")
	return errors.Join(k.Load(confmap.Provider(s.Defaults(), "."), nil), decode(k, out))
}
