package membersdk

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/redisstream/coordinator/membersdk/internal/coordclient"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// AuthError is returned when a coordinator answers 401 or 403: retrying or
// failing over would not help, so the consumer stops with it. Over the Redis
// mailbox it is also returned when Redis refuses the mailbox commands to the
// client's Redis user (NOPERM, NOAUTH, WRONGPASS; StatusCode 403).
type AuthError struct {
	// URL is the coordinator URL, or "redis-mailbox:<request stream key>"
	// for the Redis mailbox.
	URL        string
	StatusCode int
	Body       protocol.ErrorBody
}

func (e *AuthError) Error() string {
	if key, ok := strings.CutPrefix(e.URL, mailboxWhere); ok {
		return fmt.Sprintf("membersdk: the coordinator refused the member through the Redis mailbox %s: status %d %s %s", key, e.StatusCode, e.Body.ErrorCode, e.Body.Message)
	}
	return fmt.Sprintf("membersdk: coordinator %s refused the credentials: HTTP %d %s %s", e.URL, e.StatusCode, e.Body.ErrorCode, e.Body.Message)
}

// HTTPError is a non-2xx answer other than 401/403. The SDK treats it like a
// transport error (retry, fail over). Over the Redis mailbox StatusCode is
// the reply's status, the HTTP status the same request gets over HTTP.
type HTTPError struct {
	// URL is the coordinator URL, or "redis-mailbox:<request stream key>".
	URL        string
	StatusCode int
	Body       protocol.ErrorBody
}

func (e *HTTPError) Error() string {
	if key, ok := strings.CutPrefix(e.URL, mailboxWhere); ok {
		return fmt.Sprintf("membersdk: the coordinator answered through the Redis mailbox %s: status %d %s %s", key, e.StatusCode, e.Body.ErrorCode, e.Body.Message)
	}
	return fmt.Sprintf("membersdk: coordinator %s answered HTTP %d %s %s", e.URL, e.StatusCode, e.Body.ErrorCode, e.Body.Message)
}

// newCoordClient is the coordinator HTTP client (internal/coordclient)
// with the SDK's errors: *AuthError for 401/403, *HTTPError for any other
// non-2xx answer.
func newCoordClient(urls []string, hc *http.Client, auth Auth, timeout time.Duration) (*coordclient.Client, error) {
	ca := coordclient.Auth{Username: auth.Username, Password: auth.Password, BearerToken: auth.BearerToken, TokenFunc: auth.TokenFunc}
	return coordclient.New(urls, hc, ca, timeout, statusError, isAuthError)
}

func statusError(auth bool, fullURL string, status int, body protocol.ErrorBody) error {
	if auth {
		return &AuthError{URL: fullURL, StatusCode: status, Body: body}
	}
	return &HTTPError{URL: fullURL, StatusCode: status, Body: body}
}

func isAuthError(err error) bool {
	var ae *AuthError
	return errors.As(err, &ae)
}
