// Package authz is the authorization decision every transport shares: which
// roles a configured user holds (config.Auth users), which stream prefixes
// and consumer groups it is scoped to (auth.users[].streams, .groups), and
// whether such a principal may use an operation that needs a role on a
// stream and a group. The HTTP API (api/) asks it after authenticating a
// request; the Redis mailbox (mailbox/) asks it for the principal whose
// request key an entry was read from. One decision, one set of messages.
//
// # What this package may import
//
// The standard library and config (role names, users) only: never fiber or
// another transport, never protoactor, never actors/ (TestAuthzImports).
package authz
