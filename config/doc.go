// Package config loads and validates the coordinator configuration
// (SPEC §8) with koanf.
//
// # Contract
//
// Load(args, environ) merges four koanf layers, a later one overriding an
// earlier one key by key: defaults (Default, confmap provider); a YAML file
// named by --config FILE or RSC_CONFIG (file provider); RSC_* variables (env
// provider); flags named like the key, --http.addr, --redis.addrs, ... (posflag
// provider; secrets and auth.users have no flag). The merged tree is decoded
// by koanf's UnmarshalWithConf with mapstructure hooks (durations "1m30s",
// byte sizes "1MiB", comma-separated lists); a wrong value is explained from
// mapstructure's typed *DecodeError and the key's Go type, and keys of the
// merged tree that name no setting are errors (explain.go).
//
// Keys are the kebab-case paths of the koanf struct tags; the help tag is the
// --help text and the secret tag keeps a value out of errors and flags.
// Because "_" in an environment name stands for both "." and "-", variables
// are resolved by exact lookup in the table derived from the struct, never by
// guessing. Unknown keys, unknown flags, values of the wrong type and RSC_*
// variables that look like ours but name no key are errors naming the key,
// the value and its source; other unknown RSC_* variables are warnings
// (LoadWithWarnings), since other tools may share the prefix.
//
// Scalar bounds are declared once, as validate tags checked by
// go-playground/validator (bounds.go); Validate adds formats and the rules
// between keys. The auth section (auth.go) is the one definition of users,
// roles and credential limits: api takes config.Auth as it is. Failpoints
// for tests (failpoint.*) are keys like any other, never read beside Load.
//
// After decoding, Load calls Validate, which reports every problem at once
// (errors.Join), each as "config: KEY = VALUE: what is wrong", never echoing
// a secret. Warnings returns non-fatal advice to log at start, Redacted a
// copy safe to log, Embedded whether redis.addrs is empty (in-process Redis,
// development only). example.yaml lists every key with its default;
// docs/OPERATIONS.md ("Configuration") has the same as a table.
//
// # Imports
//
// config imports only the standard library and these libraries (koanf and its
// providers, mapstructure, pflag, go-playground/validator, yaml, bcrypt),
// never another package of this module: api, cmd/coordinator and the actor
// cluster providers import config, not the other way round.
package config
