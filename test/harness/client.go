package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Client is a small HTTP client for the coordinator's routes.
type Client struct {
	Base     string
	User     string
	Password string
	HTTP     *http.Client
}

// NewClient returns a client for base (e.g. Coordinator.URL()).
func NewClient(base string) *Client {
	return &Client{Base: base, HTTP: &http.Client{Timeout: 10 * time.Second}}
}

// Do sends body (JSON-encoded unless it is []byte or nil) and decodes a 2xx
// answer into out when out is not nil. It returns the status and raw body.
func (c *Client) Do(method, path string, body, out any) (int, []byte, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.User != "" {
		req.SetBasicAuth(c.User, c.Password)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	if out != nil && resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, raw, fmt.Errorf("decode %s %s: %w: %s", method, path, err, raw)
		}
	}
	return resp.StatusCode, raw, nil
}

// MustDo is Do that fails the test on a transport error or an unexpected status.
func (c *Client) MustDo(t testing.TB, method, path string, body, out any, want int) []byte {
	t.Helper()
	status, raw, err := c.Do(method, path, body, out)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, raw)
	}
	return raw
}

// CreateStream creates a stream with n shards.
func (c *Client) CreateStream(t testing.TB, prefix string, n int) protocol.CreateStreamResponse {
	t.Helper()
	var out protocol.CreateStreamResponse
	c.MustDo(t, "POST", "/coord/v1/streams/"+prefix, protocol.CreateStreamRequest{InitialShardCount: &n, RequestedBy: "test"}, &out, 201)
	return out
}

// HeartbeatPath is the heartbeat route of a member.
func HeartbeatPath(prefix, group, member string) string {
	return "/coord/v1/streams/" + prefix + "/groups/" + group + "/members/" + member + "/heartbeat"
}

// Metric reads the series name from /metrics (unlabelled, or with its
// labels as the exposition writes them: sorted by name); the test fails if
// the route does not answer 200 or the series is missing.
func (c *Client) Metric(t testing.TB, name string) float64 {
	t.Helper()
	v, found, err := c.Series(name)
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("metric %s not found", name)
	}
	return v
}

// Series reads the series name from /metrics as Metric does, without
// failing the test: found is false while the series is not exported (a
// sampled gauge before its first round); err is a request that did not
// answer 200 or a value that does not parse.
func (c *Client) Series(name string) (v float64, found bool, err error) {
	status, raw, err := c.Do(http.MethodGet, "/metrics", nil, nil)
	if err != nil {
		return 0, false, err
	}
	if status != http.StatusOK {
		return 0, false, fmt.Errorf("GET /metrics: HTTP %d: %s", status, raw)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			if _, err := fmt.Sscanf(rest, "%g", &v); err != nil {
				return 0, false, fmt.Errorf("metric %s: %q: %v", name, line, err)
			}
			return v, true, nil
		}
	}
	return 0, false, nil
}
