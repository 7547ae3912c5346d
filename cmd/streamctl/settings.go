package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/redisstream/coordinator/cmd/streamctl/internal/configfile"
)

// Settings layers, lowest first.
const (
	layerNone = iota
	layerFile
	layerEnv
	layerFlag
)

// settings are the resolved URL and credentials, and where they came from.
type settings struct {
	path string // config file path
	url  string

	user, password, token string
	userLayer, tokenLayer int

	// warnings are printed on stderr before the command runs: deprecated
	// variables, a config file readable by others, keys it does not know.
	warnings []string
	// ignoredRSCConfig is RSC_CONFIG when set and not used (it names the
	// coordinator's config file); login mentions it.
	ignoredRSCConfig string
}

// Environment variables. streamctl's own are STREAMCTL_*; the RSC_* names
// of earlier releases are still read (with a warning) for one release, except
// RSC_CONFIG, the coordinator's config file, which streamctl never uses.
const (
	envConfig   = "STREAMCTL_CONFIG"
	envURL      = "STREAMCTL_URL"
	envUser     = "STREAMCTL_USER"
	envPassword = "STREAMCTL_PASSWORD"
	envToken    = "STREAMCTL_TOKEN"
	envCAFile   = "STREAMCTL_CA_FILE"
	envRSCConf  = "RSC_CONFIG"
)

// deprecatedEnv maps each variable streamctl reads to the RSC_* name it had.
var deprecatedEnv = [][2]string{
	{envURL, "RSC_URL"}, {envUser, "RSC_USER"}, {envPassword, "RSC_PASSWORD"}, {envToken, "RSC_TOKEN"},
}

type credFields struct {
	user, password, token          string
	hasUser, hasPassword, hasToken bool
}

// configPath is --config, else STREAMCTL_CONFIG, else
// $XDG_CONFIG_HOME/streamctl/config.yaml, else ~/.config/streamctl/config.yaml.
// RSC_CONFIG is never used: it names the coordinator's config file.
func configPath(flag string, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	if p := getenv(envConfig); p != "" {
		return p
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "streamctl", "config.yaml")
}

// environ reads streamctl's variables: STREAMCTL_X, else the deprecated
// RSC_X (with a warning naming the new name).
func (s *settings) environ(getenv func(string) string) func(string) string {
	vals := map[string]string{}
	for _, p := range deprecatedEnv {
		name, old := p[0], p[1]
		v, ov := getenv(name), getenv(old)
		switch {
		case ov == "":
		case v != "":
			s.warnings = append(s.warnings, fmt.Sprintf("%s is ignored: %s is set (streamctl's variables are STREAMCTL_*; unset %s)", old, name, old))
		default:
			v = ov
			s.warnings = append(s.warnings, fmt.Sprintf("%s is deprecated for streamctl and will stop working in the next release: use %s", old, name))
		}
		vals[name] = v
	}
	return func(name string) string { return vals[name] }
}

// loadSettings reads the config file (a missing one is empty) and the
// environment.
func loadSettings(flagPath string, getenv func(string) string) (*settings, error) {
	s := &settings{path: configPath(flagPath, getenv)}
	if rc := getenv(envRSCConf); rc != "" && flagPath == "" && getenv(envConfig) == "" {
		s.ignoredRSCConfig = rc
	}
	d, err := configfile.Read(s.path)
	if err != nil {
		return nil, err
	}
	fc, err := d.Values()
	if err != nil {
		return nil, err
	}
	if foreign, coord := d.ForeignKeys(); len(coord) > 0 {
		s.warnings = append(s.warnings, fmt.Sprintf("config file %s looks like the coordinator's config (it has %s): only streamctl's keys (%s) are read from it; "+
			"give streamctl a file of its own with --config FILE or STREAMCTL_CONFIG", s.path, configfile.KeyList(coord), strings.Join(configfile.FileKeys, ", ")))
	} else if len(foreign) > 0 {
		s.warnings = append(s.warnings, fmt.Sprintf("config file %s: key(s) %s are not streamctl settings and are ignored (its keys are %s)",
			s.path, configfile.KeyList(foreign), strings.Join(configfile.FileKeys, ", ")))
	}
	if (fc.Token != "" || fc.Password != "") && d.Mode()&0o077 != 0 {
		s.warnings = append(s.warnings, fmt.Sprintf("config file %s holds credentials and is readable by others (mode %04o): chmod 600 it", s.path, d.Mode().Perm()))
	}
	s.apply(fc.URL, fc.URL != "")
	s.applyCreds(layerFile, credFields{user: fc.User, password: fc.Password, token: fc.Token,
		hasUser: fc.User != "", hasPassword: fc.Password != "", hasToken: fc.Token != ""})
	env := s.environ(getenv)
	s.apply(env(envURL), env(envURL) != "")
	s.applyCreds(layerEnv, credFields{user: env(envUser), password: env(envPassword), token: env(envToken),
		hasUser: env(envUser) != "", hasPassword: env(envPassword) != "", hasToken: env(envToken) != ""})
	return s, nil
}

func (s *settings) apply(url string, set bool) {
	if set {
		s.url = url
	}
}

// applyCreds overrides with one (higher) layer's credentials.
func (s *settings) applyCreds(layer int, c credFields) {
	if c.hasUser {
		s.user, s.userLayer = c.user, layer
	}
	if c.hasPassword {
		s.password = c.password
		if s.userLayer < layer {
			s.userLayer = layer
		}
	}
	if c.hasToken {
		s.token, s.tokenLayer = c.token, layer
	}
}

// useToken: the token comes from a layer at least as high as the user's.
func (s *settings) useToken() bool {
	return s.token != "" && s.tokenLayer >= s.userLayer
}
