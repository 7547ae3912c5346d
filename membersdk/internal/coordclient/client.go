package coordclient

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

// MaxResponseBytes bounds a coordinator response body.
const MaxResponseBytes = 4 << 20

// Auth is how requests are authorized; the first set field wins, in the
// order TokenFunc, BearerToken, Username.
type Auth struct {
	Username, Password string
	BearerToken        string
	TokenFunc          func(ctx context.Context) (string, error)
}

// StatusError builds the error of a non-2xx answer from fullURL; auth is
// true for 401 and 403, which stop a round at once.
type StatusError func(auth bool, fullURL string, status int, body protocol.ErrorBody) error

// Client sends JSON requests to the first coordinator URL that works and
// stays on it until it fails.
type Client struct {
	urls     []string
	http     *http.Client
	auth     Auth
	timeout  time.Duration
	newError StatusError
	isAuth   func(error) bool
	cur      atomic.Int32
	// OnFailover, when set, is told when requests move to another URL.
	OnFailover func(from, to string)
}

// New checks urls (absolute http(s) URLs, at least one) and returns a
// client over them. hc may be nil. newError builds the error of a non-2xx
// answer; isAuth tells whether an error is one that stops a round (401/403).
func New(urls []string, hc *http.Client, auth Auth, timeout time.Duration, newError StatusError, isAuth func(error) bool) (*Client, error) {
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
	return &Client{urls: clean, http: hc, auth: auth, timeout: timeout, newError: newError, isAuth: isAuth}, nil
}

// Current is the URL requests go to first.
func (cc *Client) Current() string { return cc.urls[int(cc.cur.Load())%len(cc.urls)] }

// Do sends the request to the current URL, then to the others in order,
// until one answers 2xx. It returns the URL that answered. 401/403 stop the
// round at once with the error newError built.
func (cc *Client) Do(ctx context.Context, method, path string, in, out any) (string, error) {
	return cc.DoWithin(ctx, 0, method, path, in, out)
}

// DoWithin is Do with the whole round bounded to round (0: unbounded): each
// URL gets an equal share of it (at most the request timeout), so that one
// URL that hangs cannot keep the round from reaching the others, and the
// round ends within round however the URLs answer.
func (cc *Client) DoWithin(ctx context.Context, round time.Duration, method, path string, in, out any) (string, error) {
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
				if cc.OnFailover != nil {
					cc.OnFailover(cc.urls[start], base)
				}
			}
			return base, nil
		}
		if cc.isAuth(err) {
			return base, err
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return "", fmt.Errorf("membersdk: no coordinator answered: %w", errors.Join(errs...))
}

func (cc *Client) once(ctx context.Context, timeout time.Duration, method, fullURL string, body []byte, out any) error {
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
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
	if err != nil {
		return fmt.Errorf("membersdk: read response from %s: %w", fullURL, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var eb protocol.ErrorBody
		_ = json.Unmarshal(data, &eb)
		auth := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
		return cc.newError(auth, fullURL, resp.StatusCode, eb)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("membersdk: decode response from %s: %w", fullURL, err)
		}
	}
	return nil
}

func (cc *Client) authorize(ctx context.Context, req *http.Request) error {
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
