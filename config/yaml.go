package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/knadh/koanf/maps"
	"go.yaml.in/yaml/v3"
)

// The YAML file layer: a strict parser that reports unknown keys with their line.

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
