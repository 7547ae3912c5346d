package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The console's files need no credentials even with auth on (they hold no
// data); the data routes they call still do.
func TestConsoleFilesArePublicDataIsNot(t *testing.T) {
	h := newHarness(t, authConfig(t))
	for _, p := range []string{"/console", "/console/", "/console/console.js", "/console/console.css"} {
		r := h.do("GET", p, "")
		require.Equal(t, 200, r.status, p)
		require.NotEmpty(t, r.body, p)
	}
	r := h.do("GET", "/console/nothing.js", "")
	h.assertRejected(r, 404, protocol.CodeNotFound)
	r = h.do("GET", "/coord/v1/monitoring/groups", "")
	h.assertRejected(r, 401, protocol.CodeUnauthenticated)
}

// A script that says it is one (X-Requested-With, as the console does) gets
// its 401 without the Basic challenge, so the browser shows the page's login
// form rather than its own dialog; everyone else still gets the challenge.
func TestUnauthorizedScriptGetsNoBasicChallenge(t *testing.T) {
	h := newHarness(t, authConfig(t))
	r := h.do("GET", "/coord/v1/monitoring/groups", "", "X-Requested-With", "XMLHttpRequest")
	h.assertRejected(r, 401, protocol.CodeUnauthenticated)
	require.Empty(t, r.header.Get("WWW-Authenticate"))
	r = h.do("GET", "/coord/v1/monitoring/groups", "")
	require.Equal(t, `Basic realm="rsc"`, r.header.Get("WWW-Authenticate"))
}
