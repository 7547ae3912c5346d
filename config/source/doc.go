// Package source is how configuration sources are read: defaults from
// struct tags, a YAML file with the line of every key, environment variables
// (with unknown-variable detection), typed flags, the merge of these layers
// with koanf, decode errors explained per key, did-you-mean suggestions and
// byte sizes.
//
// It knows nothing of any program's keys: a Schema is built from a
// configuration struct whose tags declare them (koanf, default, help,
// secret, shape, ...). Its size does not depend on the number of keys, and
// it must not hold per-key code: that belongs to the struct's package
// (config).
//
// # Imports
//
// Only the standard library, koanf (with its providers), go.yaml.in/yaml,
// mapstructure, pflag and agnivade/levenshtein; never a package of this
// module.
package source
