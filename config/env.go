package config

import (
	"fmt"
	"regexp"
	"strings"
)

// The RSC_* environment layer, read by koanf's env provider through envKey.

// streamctlEnvs are the RSC_* names streamctl read before it moved to
// STREAMCTL_* (it still reads them for one release): neither settings nor
// typos of one, so passed over without a warning.
var streamctlEnvs = map[string]bool{EnvPrefix + "URL": true, EnvPrefix + "USER": true, EnvPrefix + "PASSWORD": true, EnvPrefix + "TOKEN": true}

// k8sServiceLink matches the variables Kubernetes injects for a Service named
// "rsc" (RSC_SERVICE_HOST, RSC_PORT_8080_TCP_ADDR, ...): ignored silently.
var k8sServiceLink = regexp.MustCompile(`^RSC_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$`)

// envKey maps a variable to its key by exact lookup ("_" stands for both "."
// and "-"). One that names no key is an error when it looks like ours (it
// starts with a section or is a near-miss of a known name: a typo must fail
// the start), else a warning (other tools may share the prefix). Its value
// is never echoed: it may be a mistyped secret.
func (l *loader) envKey(name, val string) (string, any) {
	if s, ok := byEnv[name]; ok {
		if s.typ == usersType {
			return l.parseUsers(name, val)
		}
		return s.key, val
	}
	section, _, _ := strings.Cut(strings.TrimPrefix(name, EnvPrefix), "_")
	switch {
	case name == EnvConfigFile || k8sServiceLink.MatchString(name) || streamctlEnvs[name]:
	case sections[strings.ToLower(section)] || suggestEnv(name) != "":
		l.errs = append(l.errs, fmt.Errorf("config: unknown environment variable %s%s", name, didYouMean(suggestEnv(name))))
	default:
		l.warnings = append(l.warnings, fmt.Sprintf("environment variable %s is not a coordinator setting and is ignored; if it is meant for the coordinator, check its name in docs/OPERATIONS.md", name))
	}
	return "", nil
}

// parseUsers reads RSC_AUTH_USERS, a YAML or JSON list of users.
func (l *loader) parseUsers(name, val string) (string, any) {
	v, _, err := (&yamlText{}).parse("auth.users", []byte(val))
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("config: env %s: must be a YAML/JSON list of {username, password, roles}: %s", name, strings.TrimPrefix(err.Error(), "yaml: ")))
		return "", nil
	}
	if v == nil {
		v = []any{}
	}
	return byEnv[name].key, v
}
