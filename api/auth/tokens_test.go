package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/require"
)

const otherSecret = "another-secret-0123456789"

func TestTokenVerifyRejectsMalformed(t *testing.T) {
	clock := newClock()
	ts := NewTokenSigner(testSecret, nil, time.Hour, clock.Now)
	tok, exp, err := ts.issue("admin", []string{"READ"}, "pw", 0)
	require.NoError(t, err)
	require.Equal(t, clock.Now().Add(time.Hour), exp)
	c, err := ts.verify(tok)
	require.NoError(t, err)
	require.Equal(t, "admin", c.Subject)
	require.Equal(t, []string{"READ"}, c.Roles)

	parts := strings.Split(tok, ".")
	b64 := base64.RawURLEncoding.EncodeToString
	hs256 := b64([]byte(`{"alg":"HS256","kid":"` + ts.kid + `","typ":"JWT"}`))
	for name, bad := range map[string]string{
		"empty":          "",
		"two parts":      parts[0] + "." + parts[1],
		"four parts":     tok + ".x",
		"bad sig b64":    parts[0] + "." + parts[1] + ".!!!",
		"empty sig":      parts[0] + "." + parts[1] + ".",
		"other header":   b64([]byte(`{"alg":"HS512","kid":"`+ts.kid+`","typ":"JWT"}`)) + "." + parts[1] + "." + parts[2],
		"alg none":       b64([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + ".",
		"alg none kid":   b64([]byte(`{"alg":"none","kid":"`+ts.kid+`","typ":"JWT"}`)) + "." + parts[1] + ".",
		"padded sig":     tok + "=",
		"huge":           strings.Repeat("a", maxTokenLength+1),
		"tampered body":  parts[0] + "." + b64([]byte(`{"roles":["WRITE"],"iss":"rsc","sub":"admin","aud":["rsc-api"],"exp":9999999999}`)) + "." + parts[2],
		"signed garbage": hmacSign(hs256+"."+b64([]byte(`not json`)), testSecret),
		"no subject":     hmacSign(hs256+"."+b64([]byte(`{"iss":"rsc","aud":["rsc-api"],"exp":9999999999}`)), testSecret),
		"other issuer":   hmacSign(hs256+"."+b64([]byte(`{"iss":"x","sub":"a","aud":["rsc-api"],"exp":9999999999}`)), testSecret),
		"other audience": hmacSign(hs256+"."+b64([]byte(`{"iss":"rsc","sub":"a","aud":["x"],"exp":9999999999}`)), testSecret),
		"no audience":    hmacSign(hs256+"."+b64([]byte(`{"iss":"rsc","sub":"a","exp":9999999999}`)), testSecret),
		"no expiry":      hmacSign(hs256+"."+b64([]byte(`{"iss":"rsc","sub":"a","aud":["rsc-api"]}`)), testSecret),
		"no kid":         hmacSign(b64([]byte(`{"alg":"HS256","typ":"JWT"}`))+"."+parts[1], testSecret),
		"unknown kid":    hmacSign(b64([]byte(`{"alg":"HS256","kid":"zzz","typ":"JWT"}`))+"."+parts[1], testSecret),
		"wrong secret":   hmacSign(parts[0]+"."+parts[1], otherSecret),
	} {
		_, err := ts.verify(bad)
		require.ErrorIs(t, err, errBadToken, name)
	}
	// A correctly shaped token signed by this secret passes: the cases above
	// fail for the reason their name gives, not for their shape.
	_, err = ts.verify(hmacSign(hs256+"."+b64([]byte(`{"iss":"rsc","sub":"a","aud":["rsc-api"],"exp":9999999999}`)), testSecret))
	require.NoError(t, err)
	// iat ahead of this node's clock (another node's clock is ahead) passes.
	_, err = ts.verify(hmacSign(hs256+"."+b64([]byte(`{"iss":"rsc","sub":"a","aud":["rsc-api"],"iat":9999999990,"exp":9999999999}`)), testSecret))
	require.NoError(t, err)

	clock.Advance(time.Hour)
	_, err = ts.verify(tok)
	require.ErrorIs(t, err, errBadToken, "expired")
}

func TestTokenHeaderNamesKeyAndAlgorithm(t *testing.T) {
	ts := NewTokenSigner(testSecret, nil, time.Hour, newClock().Now)
	tok, _, err := ts.issue("admin", []string{"READ"}, "pw", 0)
	require.NoError(t, err)
	parsed, _, err := jwt.NewParser().ParseUnverified(tok, &tokenClaims{})
	require.NoError(t, err)
	require.Equal(t, "HS256", parsed.Header["alg"])
	require.Equal(t, ts.kid, parsed.Header["kid"])
	require.NotContains(t, tok, testSecret)
	c := parsed.Claims.(*tokenClaims)
	require.Equal(t, tokenIssuer, c.Issuer)
	require.Equal(t, jwt.ClaimStrings{tokenAudience}, c.Audience)
	require.NotNil(t, c.ExpiresAt)
	require.NotEqual(t, keyID(testSecret), keyID(otherSecret))
}

// Rotation: a token signed by the old secret keeps working while the old
// secret is listed in previous-token-secrets, and stops once it is removed.
// Tokens are always signed by the current secret.
func TestTokenRotationOverlap(t *testing.T) {
	clock := newClock()
	old := NewTokenSigner(testSecret, nil, time.Hour, clock.Now)
	oldTok, _, err := old.issue("admin", []string{"READ"}, "pw", 0)
	require.NoError(t, err)

	overlap := NewTokenSigner(otherSecret, []string{testSecret}, time.Hour, clock.Now)
	c, err := overlap.verify(oldTok)
	require.NoError(t, err, "old token during the overlap window")
	require.Equal(t, "admin", c.Subject)
	newTok, _, err := overlap.issue("admin", []string{"READ"}, "pw", 0)
	require.NoError(t, err)
	parsed, _, err := jwt.NewParser().ParseUnverified(newTok, &tokenClaims{})
	require.NoError(t, err)
	require.Equal(t, keyID(otherSecret), parsed.Header["kid"], "new tokens are signed by the current secret")
	_, err = old.verify(newTok)
	require.ErrorIs(t, err, errBadToken, "a server without the new secret refuses the new token")

	after := NewTokenSigner(otherSecret, nil, time.Hour, clock.Now)
	_, err = after.verify(oldTok)
	require.ErrorIs(t, err, errBadToken, "old secret removed")
	_, err = after.verify(newTok)
	require.NoError(t, err)

	// A token naming the old kid but signed with the new secret is refused:
	// the kid picks the key, it does not widen the set of keys tried.
	parts := strings.Split(oldTok, ".")
	forged := hmacSign(parts[0]+"."+parts[1], otherSecret)
	_, err = overlap.verify(forged)
	require.ErrorIs(t, err, errBadToken)
}

// hmacSign appends an HS256 signature over signingInput with secret.
func hmacSign(signingInput, secret string) string {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(signingInput))
	return signingInput + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
