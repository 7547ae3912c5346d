package persistence

import "context"

// TokenGenerations keeps one token generation per API user, shared by every
// coordinator node: a bearer token carries the generation of its user at
// issue, and is refused once the stored generation is higher. Revoking a
// user's tokens is bumping its generation; nothing else is stored (no token
// list), so it costs one small hash whatever the number of tokens.
//
// A user never revoked has generation 0 and is absent from the map. The
// coordinator reads the whole map on every node at a short interval
// (api/tokengen.go), so it must stay small: one entry per revoked user.
type TokenGenerations interface {
	// TokenGenerations returns every user's generation above 0.
	// ErrUnavailable if the store cannot answer.
	TokenGenerations(ctx context.Context) (map[string]int64, error)
	// RevokeTokens bumps user's generation by one and returns the new one.
	// ErrUnavailable if the store cannot answer (then nothing may have
	// changed, or the bump may be applied: retrying is safe, it only bumps
	// again).
	RevokeTokens(ctx context.Context, user string) (int64, error)
}
