package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Bearer tokens are JWTs (RFC 7519) built and checked by
// github.com/golang-jwt/jwt/v5, signed with HMAC-SHA256 ("HS256") only.
//
// A token carries the username (sub), its roles, issuer "rsc", audience
// "rsc-api", issue and expiry times, and in its header a key id (kid) naming
// the secret that signed it. Verification accepts HS256 alone (so "none" and
// algorithm-confusion tokens are refused), requires exp, checks iss and aud,
// and looks the kid up among the configured secrets:
//
//   - auth.token-secret signs new tokens and verifies;
//   - auth.previous-token-secrets only verify, so a secret can be rotated with
//     an overlap window: move the old secret to the previous list, put the new
//     one in token-secret, restart, and remove the old one once every token it
//     signed has expired (auth.token-ttl later).
//
// The kid is derived from the secret (the first 12 bytes of SHA-256 over a
// fixed label and the secret, base64url): it identifies a secret without
// revealing it (the signature already lets anyone holding a token test
// guesses offline, so it adds nothing), and needs no separate configuration.
// iat is written but not checked: coordinator nodes' clocks may differ by a
// little, and a token issued by a node ahead of this one must still pass. A token is also
// rejected when its user is no longer configured or its password changed
// (the cred claim, credentialFP), or its generation (gen) was revoked
// (tokengen.go); the roles it grants are
// those it carries that the user still has (auth.go).

const (
	tokenIssuer    = "rsc"
	tokenAudience  = "rsc-api"
	maxTokenLength = 4096
)

var errBadToken = errors.New("api: invalid or expired token")

// tokenClaims are the claims of a login token.
type tokenClaims struct {
	Roles []string `json:"roles"`
	// Cred fingerprints the user's configured password (credentialFP): a
	// password change or a removed user invalidates the token on every node.
	Cred string `json:"cred,omitempty"`
	// Gen is the user's token generation at issue (tokengen.go): a token
	// whose generation is below the stored one was revoked.
	Gen int64 `json:"gen,omitempty"`
	jwt.RegisteredClaims
}

// tokenSigner issues and verifies bearer tokens. Safe for concurrent use.
type tokenSigner struct {
	kid    string            // key id of the signing secret
	secret []byte            // signs new tokens
	keys   map[string][]byte // kid → secret, the signing one included
	ttl    time.Duration
	now    func() time.Time
	parser *jwt.Parser
}

// newTokenSigner signs with secret and also verifies tokens signed with any
// of previous (rotation overlap).
func NewTokenSigner(secret string, previous []string, ttl time.Duration, now func() time.Time) *tokenSigner {
	t := &tokenSigner{kid: keyID(secret), secret: []byte(secret), keys: map[string][]byte{}, ttl: ttl, now: now}
	for _, p := range previous {
		t.keys[keyID(p)] = []byte(p)
	}
	t.keys[t.kid] = t.secret
	t.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithAudience(tokenAudience),
		jwt.WithTimeFunc(func() time.Time { return t.now() }),
		jwt.WithStrictDecoding(),
	)
	return t
}

// keyID names a secret in the token header without revealing it.
func keyID(secret string) string {
	sum := sha256.Sum256([]byte("rsc token key id\x00" + secret))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// issue returns a signed token for user with roles, and its expiry.
func (t *tokenSigner) issue(user string, roles []string, password string, gen int64) (string, time.Time, error) {
	now := t.now()
	exp := now.Add(t.ttl).Truncate(time.Second)
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, tokenClaims{
		Roles: roles,
		Cred:  credentialFP(t.secret, user, password),
		Gen:   gen,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    tokenIssuer,
			Subject:   user,
			Audience:  jwt.ClaimStrings{tokenAudience},
			IssuedAt:  jwt.NewNumericDate(now.Truncate(time.Second)),
			ExpiresAt: jwt.NewNumericDate(exp),
		},
	})
	tok.Header["kid"] = t.kid
	s, err := tok.SignedString(t.secret)
	if err != nil {
		return "", time.Time{}, err
	}
	return s, exp, nil
}

// verify checks token's algorithm, key id, signature, issuer, audience and
// expiry and returns its claims. Every failure is errBadToken: callers learn
// nothing more.
func (t *tokenSigner) verify(token string) (tokenClaims, error) {
	if len(token) > maxTokenLength {
		return tokenClaims{}, errBadToken
	}
	var c tokenClaims
	_, err := t.parser.ParseWithClaims(token, &c, t.key)
	if err != nil || c.Subject == "" {
		return tokenClaims{}, errBadToken
	}
	return c, nil
}

// key is the jwt.Keyfunc: the secret named by the token's kid header.
func (t *tokenSigner) key(tok *jwt.Token) (any, error) {
	kid, _ := tok.Header["kid"].(string)
	k, ok := t.keys[kid]
	if !ok {
		return nil, errBadToken
	}
	return k, nil
}

// credentialFP is a keyed fingerprint of the user's configured password (or
// hash): HMAC-SHA256 under the token secret, 12 bytes, base64url. A token
// reader cannot test passwords against it without the secret.
func credentialFP(secret []byte, user, password string) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("rsc credential\x00" + user + "\x00" + password))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:12])
}

// credentialMatches reports whether the token was issued for the user's
// current password, under any configured secret (rotation overlap).
func (t *tokenSigner) credentialMatches(c tokenClaims, password string) bool {
	for _, k := range t.keys {
		if hmac.Equal([]byte(c.Cred), []byte(credentialFP(k, c.Subject, password))) {
			return true
		}
	}
	return false
}
