// Package configfile reads and edits streamctl's own config file: a flat YAML mapping of url,
// user, password, token and tokenExpiresAt, read leniently and rewritten in place (comments,
// order and other keys kept) only when the file is streamctl's. It imports the standard
// library and go.yaml.in/yaml/v3; flags, environment and precedence stay in cmd/streamctl.
package configfile
