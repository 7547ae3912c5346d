package config

import (
	"fmt"
	"net"
	"regexp"
	"strings"
)

// The RSC_* environment layer.

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
