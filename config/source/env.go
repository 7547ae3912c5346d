package source

import (
	"fmt"
	"strings"
)

// The environment layer, read by koanf's env provider through envKey.

// envKey maps a variable to its key by exact lookup ("_" stands for both "."
// and "-"). One that names no key is an error when it looks like ours (it
// starts with a section or is a near-miss of a known name: a typo must fail
// the start), else a warning (other tools may share the prefix). Its value
// is never echoed: it may be a mistyped secret.
func (l *loader) envKey(name, val string) (string, any) {
	if s, ok := l.s.ByEnv[name]; ok {
		if isListOfStructs(s.Type) {
			return l.parseList(s, val)
		}
		return s.Key, val
	}
	section, _, _ := strings.Cut(strings.TrimPrefix(name, l.s.EnvPrefix), "_")
	switch {
	case name == l.s.ConfigEnv || (l.ignoreEnv != nil && l.ignoreEnv(name)):
	case l.s.Sections[strings.ToLower(section)] || l.s.SuggestEnv(name) != "":
		l.errs = append(l.errs, fmt.Errorf("config: unknown environment variable %s%s", name, DidYouMean(l.s.SuggestEnv(name))))
	default:
		l.warnings = append(l.warnings, fmt.Sprintf("environment variable %s is not a %s setting and is ignored; if it is meant for the %s, check its name in docs/OPERATIONS.md", name, l.s.Product, l.s.Product))
	}
	return "", nil
}

// parseList reads a list of mappings (RSC_AUTH_USERS) given as YAML or JSON.
func (l *loader) parseList(s *Setting, val string) (string, any) {
	v, _, err := (&yamlText{}).parse(s.Key, []byte(val))
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("config: env %s: must be a YAML/JSON list of %s: %s", s.Env, s.Shape, strings.TrimPrefix(err.Error(), "yaml: ")))
		return "", nil
	}
	if v == nil {
		v = []any{}
	}
	return s.Key, v
}
