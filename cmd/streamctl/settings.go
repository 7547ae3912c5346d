package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
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

	// insecure is a warning about the config file's permissions ("" if fine).
	insecure string
}

// fileConfig is the config file. login writes url, token and
// tokenExpiresAt; user and password may be written by hand.
type fileConfig struct {
	URL            string `yaml:"url,omitempty"`
	User           string `yaml:"user,omitempty"`
	Password       string `yaml:"password,omitempty"`
	Token          string `yaml:"token,omitempty"`
	TokenExpiresAt string `yaml:"tokenExpiresAt,omitempty"`
}

type credFields struct {
	user, password, token          string
	hasUser, hasPassword, hasToken bool
}

// configPath is --config, else RSC_CONFIG, else
// $XDG_CONFIG_HOME/streamctl/config.yaml, else ~/.config/streamctl/config.yaml.
func configPath(flag string, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	if p := getenv("RSC_CONFIG"); p != "" {
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

// loadSettings reads the config file (a missing one is empty) and the
// environment.
func loadSettings(flagPath string, getenv func(string) string) (*settings, error) {
	s := &settings{path: configPath(flagPath, getenv)}
	fc, mode, err := readConfig(s.path)
	if err != nil {
		return nil, err
	}
	if (fc.Token != "" || fc.Password != "") && mode&0o077 != 0 {
		s.insecure = fmt.Sprintf("config file %s holds credentials and is readable by others (mode %04o): chmod 600 it", s.path, mode.Perm())
	}
	s.apply(fc.URL, fc.URL != "")
	s.applyCreds(layerFile, credFields{user: fc.User, password: fc.Password, token: fc.Token,
		hasUser: fc.User != "", hasPassword: fc.Password != "", hasToken: fc.Token != ""})
	s.apply(getenv("RSC_URL"), getenv("RSC_URL") != "")
	s.applyCreds(layerEnv, credFields{user: getenv("RSC_USER"), password: getenv("RSC_PASSWORD"), token: getenv("RSC_TOKEN"),
		hasUser: getenv("RSC_USER") != "", hasPassword: getenv("RSC_PASSWORD") != "", hasToken: getenv("RSC_TOKEN") != ""})
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

func readConfig(path string) (fileConfig, fs.FileMode, error) {
	var fc fileConfig
	if path == "" {
		return fc, 0, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fc, 0, nil
	}
	if err != nil {
		return fc, 0, fmt.Errorf("config file: %w", err)
	}
	if err := yaml.Unmarshal(b, &fc); err != nil {
		return fc, 0, fmt.Errorf("config file %s: %w", path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return fc, 0, fmt.Errorf("config file: %w", err)
	}
	return fc, st.Mode(), nil
}

// saveToken stores url, token and its expiry in the config file (other keys
// kept), created with mode 0600 in a 0700 directory; an existing file is
// made 0600.
func saveToken(path, url, token, expiresAt string) error {
	if path == "" {
		return errors.New("no config file path: set --config or RSC_CONFIG (no home directory)")
	}
	doc := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("config file %s: %w", path, err)
		}
		if doc == nil {
			doc = map[string]any{}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config file: %w", err)
	}
	doc["url"], doc["token"], doc["tokenExpiresAt"] = url, token, expiresAt
	out, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.yaml")
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("config file: %w", err)
	}
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return fmt.Errorf("config file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	return nil
}
