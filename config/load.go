package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// ErrHelp is returned by Load when -h or --help was given; print Usage() and
// exit 0.
var ErrHelp = pflag.ErrHelp

// Load builds the configuration from four koanf layers (config/source), each
// overriding the one before it key by key: the default tags, the YAML file of
// --config FILE (or RSC_CONFIG), the RSC_* variables of environ (KEY=VALUE,
// as os.Environ returns them) and the flags in args (os.Args[1:]); then
// Validate runs. Every problem is reported at once, joined, naming the key
// and its source.
func Load(args, environ []string) (Config, error) {
	cfg, _, err := LoadWithWarnings(args, environ)
	return cfg, err
}

// LoadWithWarnings is Load that also returns notices to log at start: RSC_*
// variables that name no setting and are ignored.
func LoadWithWarnings(args, environ []string) (Config, []string, error) {
	fs := newFlagSet()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return Config{}, nil, ErrHelp
		}
		return Config{}, nil, fmt.Errorf("config: %w", err)
	}
	if fs.NArg() > 0 {
		return Config{}, nil, fmt.Errorf("config: unexpected argument %q (settings are given as --key=value)", fs.Arg(0))
	}
	var cfg Config
	warnings, err := schema.Read(&cfg, fs, environ, ignoredEnv)
	if err != nil {
		return Config{}, nil, err
	}
	if cfg.Cluster.NodeID == "" {
		cfg.Cluster.NodeID = defaultNodeID()
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, nil, err
	}
	return cfg, warnings, nil
}

// newFlagSet declares --config and one typed flag per key but the secrets,
// with the default as its default.
func newFlagSet() *pflag.FlagSet {
	def := Default()
	def.Cluster.NodeID = "" // derived from the hostname, as its help says
	return schema.FlagSet("coordinator", &def)
}

// Usage returns the --help text: every flag with its help text, environment
// variable and default.
func Usage() string {
	var b strings.Builder
	b.WriteString("Flags (each overrides the YAML file and RSC_* environment):\n" + newFlagSet().FlagUsages())
	b.WriteString("\nSettings without a flag, so they never show in a process listing (file or environment only):\n")
	for _, s := range settings {
		if s.Secret {
			fmt.Fprintf(&b, "      %-44s %s [%s]\n", s.Key, s.Help, s.Env)
		}
	}
	return b.String()
}
