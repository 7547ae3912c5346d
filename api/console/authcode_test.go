package console

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// TestConsoleAuthDisabledCodeMatchesProtocol ties the console's login check
// to the code the server sends: the login page once expected AUTH_DISABLED
// while the server said AUTHENTICATION_DISABLED.
func TestConsoleAuthDisabledCodeMatchesProtocol(t *testing.T) {
	js, err := static.ReadFile("static/console.js")
	require.NoError(t, err)
	require.Contains(t, string(js), "errorCode === '"+protocol.CodeAuthDisabled+"'",
		"console.js must recognise the server's auth-disabled code %s", protocol.CodeAuthDisabled)
}
