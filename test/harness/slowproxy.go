package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

// SlowProxy is a reverse proxy on a loopback port that forwards every request
// to one coordinator after an added delay that can be changed at runtime.
// Members started with the proxy's URL instead of the coordinator's suffer
// slow heartbeats (and slow routing lookups) while the delay is set.
//
// The delay is applied before the request is forwarded, so a heartbeat that
// the member gives up on (request timeout) never reaches the coordinator.
// When the coordinator is down the proxy answers 502, as a load balancer
// would.
type SlowProxy struct {
	t      testing.TB
	target *url.URL
	srv    *http.Server
	ln     net.Listener
	delay  atomic.Int64 // nanoseconds
	served atomic.Int64
	held   atomic.Int64 // requests waiting out their delay now
}

// StartSlowProxy starts a proxy to targetURL (e.g. Coordinator.URL()) on a
// free loopback port. It is closed at test cleanup.
func StartSlowProxy(t testing.TB, targetURL string) *SlowProxy {
	t.Helper()
	target, err := url.Parse(targetURL)
	if err != nil {
		t.Fatalf("slow proxy: target %q: %v", targetURL, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("slow proxy: listen: %v", err)
	}
	p := &SlowProxy{t: t, target: target, ln: ln}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{
		DialContext:         (&net.Dialer{Timeout: time.Second}).DialContext,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     30 * time.Second,
	}
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		if !errors.Is(err, context.Canceled) {
			http.Error(w, fmt.Sprintf(`{"status":"BAD_GATEWAY","errorCode":"PROXY","message":%q}`, err.Error()), http.StatusBadGateway)
		}
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := time.Duration(p.delay.Load()); d > 0 {
			p.held.Add(1)
			defer p.held.Add(-1)
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return // the client gave up: the request never reaches the coordinator
			}
		}
		p.served.Add(1)
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = p.srv.Serve(ln) }()
	t.Cleanup(p.Close)
	return p
}

// URL is the proxy's base URL; give it to members instead of the coordinator's.
func (p *SlowProxy) URL() string { return "http://" + p.ln.Addr().String() }

// Target is the URL requests are forwarded to.
func (p *SlowProxy) Target() string { return p.target.String() }

// SetDelay changes the delay added to every request from now on (0: none).
func (p *SlowProxy) SetDelay(d time.Duration) { p.delay.Store(int64(d)) }

// Delay is the delay currently added.
func (p *SlowProxy) Delay() time.Duration { return time.Duration(p.delay.Load()) }

// Served counts the requests forwarded so far.
func (p *SlowProxy) Served() int64 { return p.served.Load() }

// Held counts the requests waiting out their delay right now.
func (p *SlowProxy) Held() int64 { return p.held.Load() }

// Close stops the proxy; requests in flight are cut.
func (p *SlowProxy) Close() { _ = p.srv.Close() }
