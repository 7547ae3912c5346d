package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Bearer tokens are compact JWTs signed with HMAC-SHA256 (RFC 7519, "HS256")
// over auth.token-secret, carrying the username (sub), roles, issue and
// expiry times. Verification accepts exactly the header this server writes,
// so "alg":"none" and algorithm-confusion tokens are refused by construction.
// A token is rejected when its signature does not match this server's
// secret, when it has expired, or when its user is no longer configured; the
// roles it grants are those it carries that the user still has.

const (
	tokenIssuer    = "rsc"
	maxTokenLength = 4096
)

// tokenHeader is base64url({"alg":"HS256","typ":"JWT"}).
var tokenHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

var errBadToken = errors.New("invalid or expired token")

type tokenClaims struct {
	Issuer    string   `json:"iss"`
	Subject   string   `json:"sub"`
	Roles     []string `json:"roles"`
	IssuedAt  int64    `json:"iat"`
	ExpiresAt int64    `json:"exp"`
}

// tokenSigner issues and verifies bearer tokens.
type tokenSigner struct {
	secret []byte
	ttl    time.Duration
	now    func() time.Time
}

// issue returns a signed token for user with roles, and its expiry.
func (t *tokenSigner) issue(user string, roles []string) (string, time.Time, error) {
	now := t.now()
	exp := now.Add(t.ttl).Truncate(time.Second)
	payload, err := json.Marshal(tokenClaims{Issuer: tokenIssuer, Subject: user, Roles: roles, IssuedAt: now.Unix(), ExpiresAt: exp.Unix()})
	if err != nil {
		return "", time.Time{}, err
	}
	signed := tokenHeader + "." + base64.RawURLEncoding.EncodeToString(payload)
	return signed + "." + base64.RawURLEncoding.EncodeToString(t.mac(signed)), exp, nil
}

// verify checks token's header, signature, issuer and expiry and returns
// its claims. Every failure is errBadToken: callers learn nothing more.
func (t *tokenSigner) verify(token string) (tokenClaims, error) {
	if len(token) > maxTokenLength {
		return tokenClaims{}, errBadToken
	}
	head, rest, ok := strings.Cut(token, ".")
	if !ok || head != tokenHeader {
		return tokenClaims{}, errBadToken
	}
	payload, sig, ok := strings.Cut(rest, ".")
	if !ok || strings.Contains(sig, ".") {
		return tokenClaims{}, errBadToken
	}
	gotMAC, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(gotMAC, t.mac(token[:len(head)+1+len(payload)])) {
		return tokenClaims{}, errBadToken
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return tokenClaims{}, errBadToken
	}
	var c tokenClaims
	if err := json.Unmarshal(raw, &c); err != nil || c.Issuer != tokenIssuer || c.Subject == "" {
		return tokenClaims{}, errBadToken
	}
	if t.now().Unix() >= c.ExpiresAt {
		return tokenClaims{}, errBadToken
	}
	return c, nil
}

func (t *tokenSigner) mac(signed string) []byte {
	h := hmac.New(sha256.New, t.secret)
	h.Write([]byte(signed))
	return h.Sum(nil)
}
