package source

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlText is the koanf.Parser of the config file and of RSC_AUTH_USERS.
// Unlike koanf's parsers/yaml it keeps every scalar as its literal text, so
// `password: 0123` stays "0123" instead of becoming the number 83 (the
// decode hooks type it later, the same way as an env value), and it records
// the line of every key, so an error can say where a value came from. A null
// value means "not set here": it leaves the lower layers' value alone.
type yamlText struct {
	lines  map[string]int // "auth.users[0].password" -> line
	parsed bool           // the file was read (a later error is about its content)
}

func (p *yamlText) Unmarshal(b []byte) (map[string]any, error) {
	p.parsed = true
	v, line, err := p.parse("", b)
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return m, nil
	}
	return nil, fmt.Errorf("line %d: the top level must be a mapping of sections (http:, redis:, ...)", line)
}

// parse returns the document's value and the line it starts on.
func (p *yamlText) parse(path string, b []byte) (any, int, error) {
	var doc yaml.Node
	var typed any // decoding into Go values also rejects duplicate keys
	if err := errors.Join(yaml.Unmarshal(b, &doc), yaml.Unmarshal(b, &typed)); err != nil || len(doc.Content) == 0 {
		return nil, 0, err
	}
	return p.value(path, doc.Content[0]), doc.Content[0].Line, nil
}

// Marshal is not needed; it exists to satisfy koanf.Parser.
func (p *yamlText) Marshal(map[string]any) ([]byte, error) {
	return nil, errors.New("config: writing YAML is not supported")
}

func (p *yamlText) value(path string, n *yaml.Node) any {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			key := strings.TrimPrefix(path+"."+k.Value, ".")
			if p.lines != nil {
				p.lines[key] = k.Line
			}
			if v := p.value(key, n.Content[i+1]); v != nil {
				m[k.Value] = v
			}
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			l[i] = p.value(fmt.Sprintf("%s[%d]", path, i), c)
		}
		return l
	case yaml.ScalarNode:
		if n.Tag != "!!null" {
			return n.Value
		}
	}
	return nil
}

// KeyLines is the line of every key of a YAML document ("auth.users[0].password" -> 7).
func KeyLines(b []byte) (map[string]int, error) {
	p := &yamlText{lines: map[string]int{}}
	_, err := p.Unmarshal(b)
	return p.lines, err
}
