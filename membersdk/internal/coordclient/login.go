package coordclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Login returns a token function that logs in with POST /coord/v1/auth/login
// on the first URL that answers, caches the bearer token and logs in again
// shortly before it expires.
func Login(urls []string, username, password string, hc *http.Client) func(ctx context.Context) (string, error) {
	var (
		mu      sync.Mutex
		token   string
		renewAt time.Time
	)
	return func(ctx context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if token != "" && time.Now().Before(renewAt) {
			return token, nil
		}
		body, _ := json.Marshal(protocol.LoginRequest{Username: username, Password: password})
		var errs []string
		for _, u := range urls {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(u, "/")+"/coord/v1/auth/login", bytes.NewReader(body))
			if err != nil {
				return "", err
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			data, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs = append(errs, fmt.Sprintf("%s: HTTP %d %s", u, resp.StatusCode, bytes.TrimSpace(data)))
				if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
					break
				}
				continue
			}
			var lr protocol.LoginResponse
			if err := json.Unmarshal(data, &lr); err != nil || lr.AccessToken == "" {
				errs = append(errs, fmt.Sprintf("%s: bad login answer: %v", u, err))
				continue
			}
			ttl := time.Duration(lr.ExpiresInSeconds) * time.Second
			if ttl <= 0 {
				ttl = 5 * time.Minute
			}
			token, renewAt = lr.AccessToken, time.Now().Add(ttl*8/10)
			return token, nil
		}
		return "", fmt.Errorf("membersdk: login failed: %s", strings.Join(errs, "; "))
	}
}
