package config

// streamctlEnvs are the RSC_* names streamctl (the operator CLI) read before
// it moved to STREAMCTL_*; it still reads them for one release. They are not
// coordinator settings, and not typos of one: the unknown-variable check
// passes them over without a warning. The coordinator never looks at
// STREAMCTL_* at all (only RSC_* variables are read).
var streamctlEnvs = map[string]bool{
	EnvPrefix + "URL":      true,
	EnvPrefix + "USER":     true,
	EnvPrefix + "PASSWORD": true,
	EnvPrefix + "TOKEN":    true,
}
