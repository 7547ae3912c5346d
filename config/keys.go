package config

import (
	"reflect"
	"regexp"

	"github.com/redisstream/coordinator/config/source"
)

// EnvPrefix prefixes every environment variable Load reads.
const EnvPrefix = "RSC_"

// EnvConfigFile names the config file when --config is not given.
const EnvConfigFile = EnvPrefix + "CONFIG"

// setting is one leaf of Config, read from its struct tags (config/source),
// so that keys, defaults, env names, flags, --help and errors never drift
// from the struct.
type setting = source.Setting

var (
	schema       = source.NewSchema(reflect.TypeOf(Config{}), "coordinator", EnvPrefix, EnvConfigFile)
	settings     = schema.Settings
	byKey, byEnv = schema.ByKey, schema.ByEnv
	sections     = schema.Sections // "coordination", ...
	show         = source.Show
)

// Keys returns every configuration key, in struct order.
func Keys() []string {
	out := make([]string, len(settings))
	for i, s := range settings {
		out[i] = s.Key
	}
	return out
}

// EnvName returns the environment variable of a key ("" if the key is unknown).
func EnvName(key string) string {
	if s, ok := byKey[key]; ok {
		return s.Env
	}
	return ""
}

// streamctlEnvs are the RSC_* names streamctl read before it moved to
// STREAMCTL_* (it still reads them for one release): neither settings nor
// typos of one, so passed over without a warning.
var streamctlEnvs = map[string]bool{EnvPrefix + "URL": true, EnvPrefix + "USER": true, EnvPrefix + "PASSWORD": true, EnvPrefix + "TOKEN": true}

// k8sServiceLink matches the variables Kubernetes injects for a Service named
// "rsc" (RSC_SERVICE_HOST, RSC_PORT_8080_TCP_ADDR, ...): ignored silently.
var k8sServiceLink = regexp.MustCompile(`^RSC_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$`)

func ignoredEnv(name string) bool { return k8sServiceLink.MatchString(name) || streamctlEnvs[name] }
