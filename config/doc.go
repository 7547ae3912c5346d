// Package config loads and validates the coordinator configuration
// (SPEC §8) with koanf.
//
// # Contract
//
// This package is the schema: every setting is a field of Config; its tags
// are the one declaration of its key (koanf, kebab-case, dotted by section),
// default, scalar bounds (validate, checked by go-playground/validator), unit
// (hint), --help text, secrecy (secret: never echoed, no flag) and, for a
// list of mappings, its shape. Keys, env names (RSC_ + upper snake case,
// resolved by exact lookup), flags (--http.addr), --help and errors are
// derived from them (keys.go). Defaults, bounds and cross-field rules
// (validate*.go) live here; how sources are read does not: that is
// config/source, which knows nothing of these keys.
//
// Load is a thin composition of config/source: it merges four koanf layers,
// each overriding the one before key by key:
// defaults, the YAML file (--config FILE or RSC_CONFIG), RSC_* variables and
// flags; it decodes with mapstructure hooks (durations, byte sizes, lists)
// and runs Validate. Unknown keys and flags, values of the wrong type and
// RSC_* variables that look like ours are errors naming the key, the value
// (never a secret) and its source; other RSC_* variables are warnings
// (LoadWithWarnings). Validate reports every problem at once as
// "config: KEY = VALUE: what is wrong". The auth section is the one
// definition of users and roles: api takes config.Auth as it is.
// example.yaml and docs/OPERATIONS.md ("Configuration") list every key.
//
// # Imports
//
// Only the standard library, config/source, pflag, go-playground/validator
// and bcrypt; never another package of this module (api, cmd/coordinator and
// the cluster providers import config, not the other way round).
package config
