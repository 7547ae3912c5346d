package config

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/knadh/koanf/maps"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
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

// defaultsFlat renders Default() in the same raw form the other layers use
// (strings, []any, maps), so every layer goes through one decoder.
func defaultsFlat() map[string]any {
	root := reflect.ValueOf(Default())
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		out[f.key] = rawOf(root.FieldByIndex(f.index))
	}
	return out
}

func rawOf(v reflect.Value) any {
	switch v.Type() {
	case stringsType:
		return toAnySlice(v.Interface().([]string))
	case usersType:
		us := v.Interface().([]User)
		out := make([]any, len(us))
		for i, u := range us {
			out[i] = map[string]any{"username": u.Username, "password": u.Password, "roles": toAnySlice(u.Roles)}
		}
		return out
	}
	return formatScalar(v)
}

func formatScalar(v reflect.Value) string {
	switch v.Type() {
	case durationType:
		return time.Duration(v.Int()).String()
	case byteSizeType:
		return ByteSize(v.Int()).String()
	}
	switch v.Kind() {
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	default:
		return fmt.Sprint(v.Interface())
	}
}

func toAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// decode turns a raw layer value (nil, string, []any or map) into the field's type.
func decode(f *field, raw any) (reflect.Value, error) {
	if raw == nil {
		return reflect.Zero(f.typ), nil
	}
	switch f.typ {
	case stringsType:
		s, err := decodeStrings(raw)
		return reflect.ValueOf(s), err
	case usersType:
		u, err := decodeUsers(raw)
		return reflect.ValueOf(u), err
	}
	s, ok := raw.(string)
	if !ok {
		return reflect.Value{}, fmt.Errorf("must be a single %s value, not a list or mapping", f.typeName())
	}
	s = strings.TrimSpace(s)
	switch f.typ {
	case durationType:
		d, err := time.ParseDuration(s)
		if err != nil {
			return reflect.Value{}, errors.New(`must be a duration with a unit, like "3s", "500ms" or "1m30s"`)
		}
		return reflect.ValueOf(d), nil
	case byteSizeType:
		b, err := ParseByteSize(s)
		if err != nil {
			return reflect.Value{}, errors.New(`must be a byte size like "1MiB", "512KiB" or a number of bytes`)
		}
		return reflect.ValueOf(b), nil
	}
	v := reflect.New(f.typ).Elem()
	switch f.typ.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return reflect.Value{}, errors.New("must be true or false")
		}
		v.SetBool(b)
	case reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return reflect.Value{}, errors.New("must be an integer")
		}
		v.SetInt(int64(n))
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return reflect.Value{}, errors.New("must be a number")
		}
		v.SetFloat(x)
	}
	return v, nil
}

// decodeStrings accepts a list of scalars or one comma-separated string
// (surrounding spaces trimmed, empty items dropped: "" is the empty list).
func decodeStrings(raw any) ([]string, error) {
	switch r := raw.(type) {
	case string:
		out := []string{}
		for _, p := range strings.Split(r, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case []any:
		out := make([]string, 0, len(r))
		for i, e := range r {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("item %d must be a single value, not a list or mapping", i)
			}
			out = append(out, strings.TrimSpace(s))
		}
		return out, nil
	}
	return nil, errors.New("must be a list")
}

var userKeys = []string{"username", "password", "roles"}

func decodeUsers(raw any) ([]User, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, errors.New("must be a list of {username, password, roles}")
	}
	out := make([]User, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("auth.users[%d] must be a mapping {username, password, roles}", i)
		}
		var u User
		for k, v := range m {
			switch k {
			case "username", "password":
				s := ""
				if v != nil {
					if s, ok = v.(string); !ok {
						return nil, fmt.Errorf("auth.users[%d].%s must be a single value", i, k)
					}
				}
				if k == "username" {
					u.Username = strings.TrimSpace(s)
				} else {
					u.Password = s
				}
			case "roles":
				if v != nil {
					roles, err := decodeStrings(v)
					if err != nil {
						return nil, fmt.Errorf("auth.users[%d].roles %w", i, err)
					}
					u.Roles = roles
				}
			default:
				return nil, fmt.Errorf("auth.users[%d]: unknown key %q%s", i, k, didYouMean(k, userKeys))
			}
		}
		out = append(out, u)
	}
	return out, nil
}

// showRaw renders a raw value for an error message; secrets are never shown.
func showRaw(f *field, raw any) string {
	if f.secret {
		return "(redacted)"
	}
	switch r := raw.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(r)
	}
	return fmt.Sprint(raw)
}

// parseEnv maps RSC_* variables to keys. The upper-snake name is ambiguous
// ("_" stands for both "." and "-"), so it is resolved by exact lookup in the
// table of names derived from the known keys; anything else is an error.
func parseEnv(environ []string) (flat map[string]any, srcOf map[string]string, configFile string, errs []error) {
	flat = map[string]any{}
	srcOf = map[string]string{}
	seen := map[string]bool{}
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) || seen[name] {
			continue // first occurrence wins, as with os.Getenv
		}
		seen[name] = true
		if name == EnvConfigFile {
			configFile = val
			continue
		}
		f, ok := fieldByEnv[name]
		if !ok {
			if kubernetesServiceLink(name, val) {
				continue
			}
			errs = append(errs, fmt.Errorf("config: unknown environment variable %s%s", name, didYouMean(name, envNames())))
			continue
		}
		var raw any = val
		if f.typ == usersType {
			p := &yamlParser{path: "env " + name}
			users, err := p.parseUsersValue([]byte(val))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			raw = users
		}
		flat[f.key] = raw
		srcOf[f.key] = name
	}
	return flat, srcOf, configFile, errs
}

var (
	k8sSvcHost  = regexp.MustCompile(`^RSC_SERVICE_HOST$`)
	k8sSvcPort  = regexp.MustCompile(`^RSC_SERVICE_PORT(_[A-Z0-9_]+)?$`)
	k8sPort     = regexp.MustCompile(`^RSC_PORT(_[0-9]+_(TCP|UDP|SCTP))?$`)
	k8sPortPart = regexp.MustCompile(`^RSC_PORT_[0-9]+_(TCP|UDP|SCTP)_(PROTO|PORT|ADDR)$`)
	k8sURL      = regexp.MustCompile(`^(tcp|udp|sctp)://\S+:[0-9]+$`)
	digits      = regexp.MustCompile(`^[0-9]+$`)
)

// kubernetesServiceLink reports whether name=val is one of the variables
// Kubernetes injects for a Service named "rsc" (RSC_SERVICE_HOST, RSC_PORT,
// RSC_PORT_8080_TCP_ADDR, ...). Both name and value must have Kubernetes'
// exact shape, so a mistyped setting is still reported.
func kubernetesServiceLink(name, val string) bool {
	switch {
	case k8sSvcHost.MatchString(name):
		return net.ParseIP(val) != nil
	case k8sSvcPort.MatchString(name):
		return digits.MatchString(val)
	case k8sPort.MatchString(name):
		return k8sURL.MatchString(val)
	case k8sPortPart.MatchString(name):
		switch name[strings.LastIndexByte(name, '_')+1:] {
		case "PROTO":
			return val == "tcp" || val == "udp" || val == "sctp"
		case "PORT":
			return digits.MatchString(val)
		default:
			return net.ParseIP(val) != nil
		}
	}
	return false
}

// yamlParser is a koanf.Parser that checks every key against the schema
// (reporting unknown keys with their line) and keeps scalars as their literal
// text, so `password: 0123` stays "0123" and every layer decodes alike.
type yamlParser struct {
	path   string
	parsed bool           // Unmarshal was reached (errors are already formatted)
	lines  map[string]int // key -> line it was set on
	errs   []error
}

func (p *yamlParser) Unmarshal(b []byte) (map[string]any, error) {
	p.parsed = true
	p.lines = map[string]int{}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("config: file %s: %w", p.path, err)
	}
	flat := map[string]any{}
	if len(doc.Content) > 0 {
		root := resolve(doc.Content[0])
		switch {
		case root.Kind == yaml.MappingNode:
			p.walk("", root, flat)
		case root.Kind == yaml.ScalarNode && root.Tag == "!!null":
		default:
			p.errorf(root, "the top level must be a mapping of sections (http:, redis:, ...)")
		}
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return maps.Unflatten(flat, "."), nil
}

// Marshal is not needed; it exists to satisfy koanf.Parser.
func (p *yamlParser) Marshal(map[string]any) ([]byte, error) {
	return nil, errors.New("config: marshalling is not supported")
}

func (p *yamlParser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("config: file %s line %d: %s", p.path, n.Line, fmt.Sprintf(format, args...)))
}

func (p *yamlParser) walk(prefix string, m *yaml.Node, flat map[string]any) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, vn := resolve(m.Content[i]), resolve(m.Content[i+1])
		key := kn.Value
		if prefix != "" {
			key = prefix + "." + kn.Value
		}
		if kn.Kind != yaml.ScalarNode {
			p.errorf(kn, "keys must be plain names")
			continue
		}
		if seen[kn.Value] {
			p.errorf(kn, "key %q is set twice", key)
			continue
		}
		seen[kn.Value] = true
		if f, ok := fieldByKey[key]; ok {
			raw, err := p.value(f, key, vn)
			if err != nil {
				p.errs = append(p.errs, err)
				continue
			}
			flat[key] = raw
			p.lines[key] = kn.Line
			continue
		}
		if sections[key] {
			switch {
			case vn.Kind == yaml.MappingNode:
				p.walk(key, vn, flat)
			case vn.Kind == yaml.ScalarNode && vn.Tag == "!!null": // empty section
			default:
				p.errorf(kn, "%q is a section and must be a mapping", key)
			}
			continue
		}
		p.errorf(kn, "unknown key %q%s", key, didYouMean(key, keysAndSections()))
	}
}

// value converts a node to the raw form: scalar -> literal string, null ->
// nil, sequence -> []any, and for auth.users a list of checked mappings.
func (p *yamlParser) value(f *field, key string, n *yaml.Node) (any, error) {
	if f.typ == usersType {
		return p.users(n)
	}
	return p.plain(key, n, f.secret)
}

func (p *yamlParser) plain(key string, n *yaml.Node, secret bool) (any, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		return n.Value, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			c = resolve(c)
			if c.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("config: file %s line %d: %s: list items must be single values", p.path, c.Line, key)
			}
			out = append(out, c.Value)
		}
		return out, nil
	}
	if secret {
		return nil, fmt.Errorf("config: file %s line %d: %s must be a single value", p.path, n.Line, key)
	}
	return nil, fmt.Errorf("config: file %s line %d: %s must be a value or a list, not a mapping", p.path, n.Line, key)
}

func (p *yamlParser) users(n *yaml.Node) (any, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("config: %s line %d: auth.users must be a list of {username, password, roles}", p.where(), n.Line)
	}
	out := make([]any, 0, len(n.Content))
	var errs []error
	for i, un := range n.Content {
		un = resolve(un)
		if un.Kind != yaml.MappingNode {
			errs = append(errs, fmt.Errorf("config: %s line %d: auth.users[%d] must be a mapping {username, password, roles}", p.where(), un.Line, i))
			continue
		}
		m := map[string]any{}
		for j := 0; j+1 < len(un.Content); j += 2 {
			kn, vn := resolve(un.Content[j]), resolve(un.Content[j+1])
			key := fmt.Sprintf("auth.users[%d].%s", i, kn.Value)
			if _, dup := m[kn.Value]; dup {
				errs = append(errs, fmt.Errorf("config: %s line %d: key %q is set twice", p.where(), kn.Line, key))
				continue
			}
			switch kn.Value {
			case "username", "password", "roles":
			default:
				errs = append(errs, fmt.Errorf("config: %s line %d: unknown key %q%s", p.where(), kn.Line, key, didYouMean(kn.Value, userKeys)))
				continue
			}
			if kn.Value != "roles" && vn.Kind == yaml.SequenceNode {
				errs = append(errs, fmt.Errorf("config: %s line %d: %s must be a single value", p.where(), vn.Line, key))
				continue
			}
			v, err := p.plain(key, vn, kn.Value == "password")
			if err != nil {
				errs = append(errs, err)
				continue
			}
			m[kn.Value] = v
		}
		out = append(out, m)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func (p *yamlParser) where() string {
	if strings.HasPrefix(p.path, "env ") {
		return p.path
	}
	return "file " + p.path
}

// parseUsersValue parses RSC_AUTH_USERS: a YAML or JSON list of users.
func (p *yamlParser) parseUsersValue(b []byte) (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("config: %s: must be a YAML/JSON list of {username, password, roles}: %w", p.path, err)
	}
	if len(doc.Content) == 0 {
		return []any{}, nil
	}
	return p.users(resolve(doc.Content[0]))
}

// resolve follows YAML aliases (*anchor).
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
