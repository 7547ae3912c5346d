package api

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTokenVerifyRejectsMalformed(t *testing.T) {
	clock := newClock()
	ts := &tokenSigner{secret: []byte(testSecret), ttl: time.Hour, now: clock.Now}
	tok, exp, err := ts.issue("admin", []string{"READ"})
	require.NoError(t, err)
	require.Equal(t, clock.Now().Add(time.Hour), exp)
	c, err := ts.verify(tok)
	require.NoError(t, err)
	require.Equal(t, "admin", c.Subject)
	require.Equal(t, []string{"READ"}, c.Roles)

	parts := strings.Split(tok, ".")
	b64 := base64.RawURLEncoding.EncodeToString
	for name, bad := range map[string]string{
		"empty":          "",
		"two parts":      parts[0] + "." + parts[1],
		"four parts":     tok + ".x",
		"bad sig b64":    parts[0] + "." + parts[1] + ".!!!",
		"empty sig":      parts[0] + "." + parts[1] + ".",
		"other header":   b64([]byte(`{"alg":"HS512","typ":"JWT"}`)) + "." + parts[1] + "." + parts[2],
		"padded sig":     tok + "=",
		"huge":           strings.Repeat("a", maxTokenLength+1),
		"signed garbage": signed(ts, parts[0]+"."+b64([]byte(`not json`))),
		"no subject":     signed(ts, parts[0]+"."+b64([]byte(`{"iss":"rsc","exp":9999999999}`))),
		"other issuer":   signed(ts, parts[0]+"."+b64([]byte(`{"iss":"x","sub":"a","exp":9999999999}`))),
	} {
		_, err := ts.verify(bad)
		require.ErrorIs(t, err, errBadToken, name)
	}
	clock.Advance(time.Hour)
	_, err = ts.verify(tok)
	require.ErrorIs(t, err, errBadToken, "expired")
}

func signed(ts *tokenSigner, s string) string {
	return s + "." + base64.RawURLEncoding.EncodeToString(ts.mac(s))
}
