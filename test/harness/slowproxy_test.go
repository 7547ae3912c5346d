package harness

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestSlowProxyAddsChangeableDelay(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	}))
	defer backend.Close()
	p := StartSlowProxy(t, backend.URL)
	get := func(timeout time.Duration) (string, time.Duration, error) {
		c := &http.Client{Timeout: timeout}
		start := time.Now()
		resp, err := c.Get(p.URL() + "/coord/v1/x")
		if err != nil {
			return "", time.Since(start), err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), time.Since(start), nil
	}
	body, d, err := get(5 * time.Second)
	if err != nil || body != "/coord/v1/x" || d > time.Second {
		t.Fatalf("no delay: body %q after %s, err %v", body, d, err)
	}
	p.SetDelay(300 * time.Millisecond)
	if body, d, err = get(5 * time.Second); err != nil || body != "/coord/v1/x" || d < 300*time.Millisecond {
		t.Fatalf("delay 300ms: body %q after %s, err %v", body, d, err)
	}
	served := p.Served()
	p.SetDelay(2 * time.Second)
	if _, _, err = get(200 * time.Millisecond); err == nil {
		t.Fatal("a client that gives up before the delay must get an error")
	}
	time.Sleep(50 * time.Millisecond)
	if p.Served() != served {
		t.Fatal("a request abandoned during the delay must not be forwarded")
	}
	p.SetDelay(0)
	if _, d, err = get(5 * time.Second); err != nil || d > time.Second {
		t.Fatalf("delay back to 0: %s, %v", d, err)
	}
	backend.Close()
	resp, err := http.Get(p.URL() + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("backend down: status %d, want 502", resp.StatusCode)
	}
}
