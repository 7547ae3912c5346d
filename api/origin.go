package api

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Cross-origin protection. A browser sends the credentials it keeps for
// this server (a Basic password it was once given, cookies) with any
// request a page on another site makes, so a form on another origin could
// otherwise run an admin change as the operator. Requests that change state
// (every non-GET route, and producer routing, which creates its group on
// first use) are therefore refused with 403 CROSS_ORIGIN_REQUEST when the
// browser says they come from elsewhere:
//
//	Sec-Fetch-Site same-origin or none (typed URL, bookmark)   allowed
//	Sec-Fetch-Site cross-site or same-site                     refused unless Origin is in http.allowed-origins
//	no Sec-Fetch-Site (an older browser, or no browser):
//	  no Origin (curl, SDKs, streamctl, the reference's clients) allowed
//	  Origin whose host:port equals the Host header            allowed
//	  any other Origin                                          refused unless in http.allowed-origins
//
// The same rules as Go's net/http CrossOriginProtection, read from
// fasthttp's headers without allocating on the heartbeat path. Non-browser
// clients send neither header and are never affected. The coordinator sends
// no CORS headers, so a page on another origin can still not read answers
// or send application/json (that needs a preflight nobody answers).

// originPolicy holds http.allowed-origins, normalized ("scheme://host[:port]", lower case).
type originPolicy struct {
	allowed map[string]bool
	lastLog atomic.Int64 // unix nanos of the last refusal logged (one line per originLogEvery)
}

const originLogEvery = 10 * time.Second

func newOriginPolicy(origins []string) *originPolicy {
	p := &originPolicy{allowed: map[string]bool{}}
	for _, o := range origins {
		if n, err := normalizeOrigin(o); err == nil {
			p.allowed[n] = true
		}
	}
	return p
}

// normalizeOrigin checks one http.allowed-origins entry: scheme http or
// https, a host, optionally a port, nothing else.
func normalizeOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", errBadOrigin
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

var errBadOrigin = errors.New(`must be an origin "scheme://host[:port]" with scheme http or https and no path, e.g. https://ops.example.com`)

// refusal says why the request must be refused, or "" when it may proceed.
func (p *originPolicy) refusal(h *fiber.Ctx) string {
	hdr := &h.Request().Header
	site := hdr.Peek("Sec-Fetch-Site")
	origin := hdr.Peek(fiber.HeaderOrigin)
	switch {
	case bytes.Equal(site, []byte("same-origin")), bytes.Equal(site, []byte("none")):
		return ""
	case len(site) == 0 && len(origin) == 0:
		return "" // not a browser
	case len(site) == 0 && originHostIs(origin, h.Request().Host()):
		return ""
	}
	if len(origin) > 0 && p.allowed[strings.ToLower(string(origin))] {
		return ""
	}
	from := "Origin " + httpx.Truncate(string(origin), 100)
	if len(origin) == 0 {
		from = "no Origin"
	}
	if len(site) > 0 {
		from += ", Sec-Fetch-Site " + httpx.Truncate(string(site), 20)
	}
	return "this route changes state and the request comes from a page on another origin (" + from +
		"): browsers send saved credentials with such requests, so the coordinator refuses them. " +
		"Send it from a non-browser client or the coordinator's own console, or add the page's origin to http.allowed-origins"
}

// originHostIs reports whether Origin's host[:port] equals host (the Host header).
func originHostIs(origin, host []byte) bool {
	_, rest, ok := bytes.Cut(origin, []byte("://"))
	return ok && len(rest) > 0 && bytes.EqualFold(rest, host)
}

// sameOrigin is the middleware of state-changing routes.
func (s *Server) sameOrigin(c *fiber.Ctx) error {
	why := s.origins.refusal(c)
	if why == "" {
		return c.Next()
	}
	now := time.Now().UnixNano()
	if last := s.origins.lastLog.Load(); now-last >= int64(originLogEvery) && s.origins.lastLog.CompareAndSwap(last, now) {
		s.log.Warn("refused a cross-origin request that would change state: a page on another site tried to use a browser's saved credentials for this coordinator; if the page is yours, add its origin to http.allowed-origins (logged at most every 10s; count: rsc_http_requests_total code 403)",
			"origin", httpx.Truncate(c.Get(fiber.HeaderOrigin), 100), "secFetchSite", httpx.Truncate(c.Get("Sec-Fetch-Site"), 20),
			"method", c.Method(), "route", httpx.RouteLabel(c), "ip", c.IP())
	}
	return httpx.New(http.StatusForbidden, protocol.CodeCrossOrigin, why)
}

// sameOriginOnly guards a GET handler that may create state (producer routing).
func (s *Server) sameOriginOnly(h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if why := s.origins.refusal(c); why != "" {
			return httpx.New(http.StatusForbidden, protocol.CodeCrossOrigin, why)
		}
		return h(c)
	}
}
