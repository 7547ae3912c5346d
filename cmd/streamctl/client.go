package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// client calls the coordinator's HTTP API with the resolved credentials:
// a bearer token when one is set, else Basic credentials when a user is.
type client struct {
	base     string
	user     string
	password string
	token    string
	http     *http.Client
	// hint401 is added to a 401 answer's message (e.g. how to log in again).
	hint401 string
}

// apiError is a non-2xx answer, with the SPEC error body when there is one.
type apiError struct {
	Method, Path string
	Status       int
	Code         string
	Message      string
	Body         []byte
}

func (e *apiError) Error() string {
	switch {
	case e.Code != "" && e.Message != "":
		return fmt.Sprintf("%s (HTTP %d %s)", e.Message, e.Status, e.Code)
	case len(e.Body) > 0:
		return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.Path, e.Status, truncate(strings.TrimSpace(string(e.Body)), 500))
	}
	return fmt.Sprintf("%s %s: HTTP %d", e.Method, e.Path, e.Status)
}

// apiPath joins path segments under the base, escaping every name as one
// segment: names may hold ':', '/', spaces or any Unicode ("orders:v2").
// Segments starting with '/' are literal route parts.
func apiPath(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if strings.HasPrefix(p, "/") {
			b.WriteString(p)
			continue
		}
		b.WriteByte('/')
		b.WriteString(url.PathEscape(p))
	}
	return b.String()
}

// do sends body (JSON) and returns the raw 2xx answer; other statuses are an
// *apiError. A transport failure names the URL.
func (c *client) do(ctx context.Context, method, path string, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.base, "/")+path, rd)
	if err != nil {
		return nil, fmt.Errorf("coordinator URL %q: %w", c.base, err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "streamctl/"+version)
	switch {
	case c.token != "":
		req.Header.Set("Authorization", "Bearer "+c.token)
	case c.user != "":
		req.SetBasicAuth(c.user, c.password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		e := &apiError{Method: method, Path: path, Status: resp.StatusCode, Body: raw}
		var eb protocol.ErrorBody
		if json.Unmarshal(raw, &eb) == nil {
			e.Code, e.Message = eb.ErrorCode, eb.Message
		}
		if resp.StatusCode == http.StatusUnauthorized && c.hint401 != "" && e.Message != "" {
			e.Message += " — " + c.hint401
		}
		return nil, e
	}
	return raw, nil
}

// get is do for GET with the answer decoded into out.
func (c *client) get(ctx context.Context, path string, out any) ([]byte, error) {
	return c.send(ctx, http.MethodGet, path, nil, out)
}

// send is do with the answer decoded into out (when out is not nil).
func (c *client) send(ctx context.Context, method, path string, body, out any) ([]byte, error) {
	raw, err := c.do(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return raw, fmt.Errorf("%s %s: unexpected answer (%v): %s", method, path, err, truncate(string(raw), 300))
		}
	}
	return raw, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func newHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout}
}

// newHTTPClientCA is newHTTPClient trusting, for https:// URLs, the CAs of
// the PEM file caFile ("" = the system's CAs), as the member SDK does.
func newHTTPClientCA(timeout time.Duration, caFile string) (*http.Client, error) {
	if caFile == "" {
		return newHTTPClient(timeout), nil
	}
	hc, err := membersdk.HTTPClientWithCA(caFile, "", "")
	if err != nil {
		return nil, fmt.Errorf("--ca-file (%s): %w", envCAFile, err)
	}
	hc.Timeout = timeout
	return hc, nil
}
