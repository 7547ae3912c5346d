package membersdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// maxResponseBytes bounds a coordinator response body.
const maxResponseBytes = 4 << 20

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

// coordClient sends JSON requests to the first coordinator URL that works and
// stays on it until it fails.
type coordClient struct {
	urls       []string
	http       *http.Client
	auth       Auth
	timeout    time.Duration
	cur        atomic.Int32
	onFailover func(from, to string)
}

func newCoordClient(urls []string, hc *http.Client, auth Auth, timeout time.Duration) (*coordClient, error) {
	if len(urls) == 0 {
		return nil, errors.New("membersdk: no coordinator URL")
	}
	clean := make([]string, len(urls))
	for i, u := range urls {
		p, err := url.Parse(u)
		if err != nil || p.Scheme == "" || p.Host == "" {
			return nil, fmt.Errorf("membersdk: coordinator URL %q is not an absolute http(s) URL", u)
		}
		clean[i] = strings.TrimRight(u, "/")
	}
	if hc == nil {
		hc = &http.Client{}
	}
	return &coordClient{urls: clean, http: hc, auth: auth, timeout: timeout}, nil
}

// current is the URL requests go to first.
func (cc *coordClient) current() string { return cc.urls[int(cc.cur.Load())%len(cc.urls)] }

// do sends the request to the current URL, then to the others in order,
// until one answers 2xx. It returns the URL that answered. 401/403 stop the
// round at once with an *AuthError.
func (cc *coordClient) do(ctx context.Context, method, path string, in, out any) (string, error) {
	return cc.doWithin(ctx, 0, method, path, in, out)
}

// doWithin is do with the whole round bounded to round (0: unbounded): each
// URL gets an equal share of it (at most the request timeout), so that one
// URL that hangs cannot keep the round from reaching the others, and the
// round ends within round however the URLs answer.
func (cc *coordClient) doWithin(ctx context.Context, round time.Duration, method, path string, in, out any) (string, error) {
	perURL := cc.timeout
	if round > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, round)
		defer cancel()
		perURL = min(perURL, round/time.Duration(len(cc.urls)))
	}
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return "", fmt.Errorf("membersdk: encode request: %w", err)
		}
	}
	start := int(cc.cur.Load())
	var errs []error
	for i := range cc.urls {
		idx := (start + i) % len(cc.urls)
		base := cc.urls[idx]
		err := cc.once(ctx, perURL, method, base+path, body, out)
		if err == nil {
			if idx != start {
				cc.cur.Store(int32(idx))
				if cc.onFailover != nil {
					cc.onFailover(cc.urls[start], base)
				}
			}
			return base, nil
		}
		var ae *AuthError
		if errors.As(err, &ae) {
			return base, err
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return "", fmt.Errorf("membersdk: no coordinator answered: %w", errors.Join(errs...))
}

func (cc *coordClient) once(ctx context.Context, timeout time.Duration, method, fullURL string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, fullURL, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if err := cc.authorize(ctx, req); err != nil {
		return err
	}
	resp, err := cc.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("membersdk: read response from %s: %w", fullURL, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var eb protocol.ErrorBody
		_ = json.Unmarshal(data, &eb)
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return &AuthError{URL: fullURL, StatusCode: resp.StatusCode, Body: eb}
		}
		return &HTTPError{URL: fullURL, StatusCode: resp.StatusCode, Body: eb}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("membersdk: decode response from %s: %w", fullURL, err)
		}
	}
	return nil
}

func (cc *coordClient) authorize(ctx context.Context, req *http.Request) error {
	switch {
	case cc.auth.TokenFunc != nil:
		tok, err := cc.auth.TokenFunc(ctx)
		if err != nil {
			return fmt.Errorf("membersdk: get bearer token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	case cc.auth.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+cc.auth.BearerToken)
	case cc.auth.Username != "":
		req.SetBasicAuth(cc.auth.Username, cc.auth.Password)
	}
	return nil
}

// groupPath is "/coord/v1/streams/{p}/groups/{g}".
func groupPath(streamPrefix, group string) string {
	return "/coord/v1/streams/" + url.PathEscape(streamPrefix) + "/groups/" + url.PathEscape(group)
}

func heartbeatPath(streamPrefix, group, memberID string) string {
	return groupPath(streamPrefix, group) + "/members/" + url.PathEscape(memberID) + "/heartbeat"
}
