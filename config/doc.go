// Package config loads and validates the coordinator configuration
// (SPEC §8).
//
// # Contract
//
// Load(args, environ) builds a Config from four layers; a later layer
// overrides an earlier one key by key:
//
//  1. defaults (Default);
//  2. a YAML file, named by --config FILE or else by RSC_CONFIG;
//  3. environment variables RSC_ + the key in upper snake case
//     (coordination.member-lease-ttl -> RSC_COORDINATION_MEMBER_LEASE_TTL);
//  4. flags named like the key (--http.addr, --redis.addrs, --cluster.port,
//     --cluster.node-id, --log.level, ... every key except secrets and
//     auth.users, which never belong on a command line).
//
// Keys are kebab-case paths of the koanf struct tags (Keys lists them all).
// Because "_" in an environment name stands for both "." and "-", names are
// resolved by exact lookup in the table derived from the struct, never by
// guessing. Nothing passes silently: an unknown YAML key (reported with its
// line), an unknown RSC_* variable, an unknown flag, or a value of the wrong
// type is an error naming the key or variable and where the value came from.
// The one exception is the exact variables Kubernetes injects for a Service
// named "rsc" (RSC_SERVICE_HOST, RSC_PORT_8080_TCP, ...), which are ignored.
//
// Value syntax, the same in every layer: durations in Go syntax ("3s",
// "1m30s"); byte sizes as "1MiB", "512KiB", "1MB" or a plain number of bytes;
// lists as YAML lists or comma-separated strings ("a:6379,b:6379"; an empty
// string is the empty list); booleans as true/false; auth.users as a YAML list
// in the file or a YAML/JSON list in RSC_AUTH_USERS.
//
// After decoding, Load calls Validate, which reports every problem at once
// (errors.Join), each as "config: KEY = VALUE: what is wrong", never echoing
// a secret. Warnings returns non-fatal advice (lease shorter than three
// heartbeats, embedded Redis, ...) to log at start, and Redacted returns a
// copy with secrets replaced by "***" for logging the effective
// configuration. Embedded reports that redis.addrs is empty, meaning the
// coordinator runs an in-process Redis for development only.
//
// example.yaml in this directory lists every key with its default and
// meaning; docs/OPERATIONS.md ("Configuration") has the same as a table.
package config
