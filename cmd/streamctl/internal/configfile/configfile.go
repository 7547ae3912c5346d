package configfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// streamctl's config file: a flat YAML mapping of the keys below. It is
// read leniently (a key streamctl does not know is ignored, with a warning)
// but written strictly: login edits the file in place (comments, order and
// the other keys kept) and refuses to touch a file that holds anything but
// these keys, such as the coordinator's config.

// DefaultHint is the default config path as help texts show it.
const DefaultHint = "~/.config/streamctl/config.yaml"

// FileKeys are the keys of streamctl's config file. login writes url, token
// and tokenExpiresAt; user and password may be written by hand.
var FileKeys = []string{"url", "user", "password", "token", "tokenExpiresAt"}

// CoordinatorSections are the top-level sections of the coordinator's config
// file (config/example.yaml): a file with one of them is the coordinator's.
var CoordinatorSections = []string{"http", "redis", "store", "auth", "coordination", "groups", "defaults",
	"resharding", "limits", "cluster", "log", "metrics", "shutdown", "audit", "runtime", "failpoint", "mailbox", "assignment"}

// ErrNotOurFile: the config file holds keys that are not streamctl's.
var ErrNotOurFile = errors.New("streamctl: not a streamctl config file")

// Values is what streamctl reads from its config file.
type Values struct {
	URL            string `yaml:"url,omitempty"`
	User           string `yaml:"user,omitempty"`
	Password       string `yaml:"password,omitempty"`
	Token          string `yaml:"token,omitempty"`
	TokenExpiresAt string `yaml:"tokenExpiresAt,omitempty"`
}

// Doc is a parsed config file: its YAML tree (nil for a missing or
// empty file) and its mode.
type Doc struct {
	path   string
	root   *yaml.Node // the top-level mapping, or nil
	doc    *yaml.Node // the document node holding root, or nil
	exists bool
	mode   fs.FileMode
}

// Read parses the file at path (a missing file is an empty doc).
func Read(path string) (*Doc, error) {
	d := &Doc{path: path}
	if path == "" {
		return d, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	d.exists, d.mode = true, st.Mode()
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	if doc.Kind == 0 {
		return d, nil // empty
	}
	d.doc = &doc // kept even when it holds only comments
	if len(doc.Content) == 0 {
		return d, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return d, nil
	}
	if doc.Kind != yaml.DocumentNode || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config file %s line %d: must be a YAML mapping of url, user, password, token, tokenExpiresAt", path, root.Line)
	}
	d.root = root
	return d, nil
}

// Values decodes the file's keys.
func (d *Doc) Values() (Values, error) {
	var fc Values
	if d.root == nil {
		return fc, nil
	}
	if err := d.root.Decode(&fc); err != nil {
		return fc, fmt.Errorf("config file %s: %w", d.path, err)
	}
	return fc, nil
}

// ForeignKeys are the top-level keys that are not streamctl's, and those of
// them that are sections of the coordinator's config.
func (d *Doc) ForeignKeys() (foreign, coordinator []string) {
	if d.root == nil {
		return nil, nil
	}
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		k := d.root.Content[i].Value
		if slices.Contains(FileKeys, k) {
			continue
		}
		foreign = append(foreign, k)
		if slices.Contains(CoordinatorSections, k) {
			coordinator = append(coordinator, k)
		}
	}
	return foreign, coordinator
}

// CheckOurs refuses a file that holds keys streamctl does not know: writing
// it would change a file that is not streamctl's (e.g. the coordinator's).
func (d *Doc) CheckOurs() error {
	foreign, coord := d.ForeignKeys()
	switch {
	case len(coord) > 0:
		return fmt.Errorf("config file %s looks like the coordinator's config (it has %s): streamctl never rewrites it. "+
			"Store streamctl's settings in a file of its own: pass --config FILE or set STREAMCTL_CONFIG (default %s): %w",
			d.path, KeyList(coord), DefaultHint, ErrNotOurFile)
	case len(foreign) > 0:
		return fmt.Errorf("config file %s has key(s) %s that streamctl does not know (its keys are %s): streamctl only rewrites its own file. "+
			"Remove those keys if this is streamctl's file, or pass --config FILE / STREAMCTL_CONFIG naming another file: %w",
			d.path, KeyList(foreign), strings.Join(FileKeys, ", "), ErrNotOurFile)
	}
	return nil
}

// KeyList quotes keys for a message.
func KeyList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}

// Set gives key the string value v: the existing value node is replaced in
// place (its comments kept), or the pair is appended.
func (d *Doc) Set(key, v string) {
	if d.root == nil {
		d.root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if d.doc == nil {
			d.doc = &yaml.Node{Kind: yaml.DocumentNode}
		}
		d.doc.Content = []*yaml.Node{d.root}
	}
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		if d.root.Content[i].Value == key {
			old := d.root.Content[i+1]
			d.root.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v,
				HeadComment: old.HeadComment, LineComment: old.LineComment, FootComment: old.FootComment}
			return
		}
	}
	d.root.Content = append(d.root.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
}

// Write replaces the file atomically with the edited tree. An existing file
// keeps its mode; a new one is created 0600 in a 0700 directory. A symbolic
// link is followed: its target is rewritten, the link kept.
func (d *Doc) Write() error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(d.doc); err != nil {
		return fmt.Errorf("config file %s: %w", d.path, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("config file %s: %w", d.path, err)
	}
	target, mode := d.path, fs.FileMode(0o600)
	if d.exists {
		mode = d.mode.Perm()
		if t, err := filepath.EvalSymlinks(d.path); err == nil {
			target = t
		}
	} else if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return fmt.Errorf("config directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), ".streamctl-*.yaml")
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	_, err = tmp.Write(buf.Bytes())
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		return fmt.Errorf("config file %s: %w", d.path, err)
	}
	return nil
}

// SaveToken stores url, token and its expiry in streamctl's config file,
// after checking that the file is streamctl's.
func SaveToken(path, url, token, expiresAt string) error {
	if path == "" {
		return errors.New("no config file path: pass --config FILE or set STREAMCTL_CONFIG (no home directory)")
	}
	d, err := Read(path)
	if err != nil {
		return err
	}
	if err := d.CheckOurs(); err != nil {
		return err
	}
	d.Set("url", url)
	d.Set("token", token)
	d.Set("tokenExpiresAt", expiresAt)
	return d.Write()
}

// CheckWritable refuses, before anything is sent, a config file login
// would not rewrite.
func CheckWritable(path string) error {
	if path == "" {
		return errors.New("no config file path: pass --config FILE or set STREAMCTL_CONFIG (no home directory)")
	}
	d, err := Read(path)
	if err != nil {
		return err
	}
	return d.CheckOurs()
}

// Mode is the file's permission bits (zero for a missing file).
func (d *Doc) Mode() fs.FileMode { return d.mode }
