package api

import (
	"math"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Failed-credential limiting, on every authenticated route and on login.
//
// Two token buckets count failed credentials (a wrong password, an unknown
// user, a bad token; a request without credentials is not a failure):
//
//	per client address   auth.failed-auth-per-address-rate / -burst: every
//	                     failure from the address
//	per user at address  auth.failed-auth-per-user-rate / -burst: failures
//	                     of one configured user from one address
//
// The rules, for Basic credentials (user, password) from address A:
//
//   - a configured user whose bucket at A is empty is refused 429 without a
//     password check;
//   - otherwise its password is checked, even when A itself is locked: a
//     real user behind the same address (NAT, proxy) passes with the right
//     password; the cost is bounded by that user's own bucket at A;
//   - an unknown user from a locked A is refused 429 without a check (no
//     bcrypt spent); from an unlocked A it costs the same bcrypt check as a
//     known user (authenticator.checkPassword);
//   - a failure while A is locked answers 429 for known and unknown users
//     alike, so the status does not tell them apart.
//
// A bearer token is cheap to check, so it is always checked; a bad token
// counts against A. 429 carries Retry-After (whole seconds) and the standard
// error body. The failure that empties a bucket writes one audit record
// (result "locked"): one per burst, not one per attempt. Metrics:
// rsc_auth_failures_total{outcome="failed"|"locked"}.

type failureLimiter struct {
	addr *limiter // key: address
	user *limiter // key: user + "\x00" + address
}

func newFailureLimiter(cfg Config, now func() time.Time) *failureLimiter {
	return &failureLimiter{addr: newLimiter(cfg.FailedAuthPerAddress, now), user: newLimiter(cfg.FailedAuthPerUser, now)}
}

// authRefusal is a 429 for credentials refused by the failure limiter.
func authRefusal(wait time.Duration, key string) error {
	secs := int(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return &httpError{status: 429, code: protocol.CodeRateLimited,
		msg:        "too many failed credentials from this client (" + key + "); retry after " + strconv.Itoa(secs) + "s with the right credentials",
		retryAfter: secs}
}

const (
	keyFailAddr = "auth.failed-auth-per-address-burst"
	keyFailUser = "auth.failed-auth-per-user-burst"
)

// authenticateLimited is authenticate under the failure limiter. It returns
// the principal, or the error to answer (401 or 429).
func (s *Server) authenticateLimited(c *fiber.Ctx, header string) (principal, error) {
	ip := c.IP()
	if u, ok := basicUser(header); ok && s.auth.known(u) {
		if locked, wait := s.fails.user.blocked(u + "\x00" + ip); locked {
			s.metrics.AuthFailure("locked")
			return principal{}, authRefusal(wait, keyFailUser)
		}
	} else if ok || isBearer(header) {
		if locked, wait := s.fails.addr.blocked(ip); locked && !isBearer(header) {
			s.metrics.AuthFailure("locked")
			return principal{}, authRefusal(wait, keyFailAddr)
		}
	}
	p, user, ok := s.auth.authenticate(header)
	if ok {
		return p, nil
	}
	if header == "" {
		return principal{}, newError(401, protocol.CodeUnauthenticated, "missing or invalid credentials")
	}
	s.metrics.AuthFailure("failed")
	s.log.Warn("authentication failed: wrong or unknown credentials; repeated failures from this address are refused 429",
		"ip", ip, "user", user, "route", routeLabel(c))
	addrOK, addrEmptied, addrWait := s.fails.addr.take(ip)
	if addrEmptied {
		s.auditLockout(c, "", ip, keyFailAddr)
	}
	if user != "" {
		if _, emptied, _ := s.fails.user.take(user + "\x00" + ip); emptied {
			s.auditLockout(c, user, ip, keyFailUser)
		}
	}
	if !addrOK {
		return principal{}, authRefusal(addrWait, keyFailAddr)
	}
	return principal{}, newError(401, protocol.CodeUnauthenticated, "missing or invalid credentials")
}

// auditLockout writes the one audit record of a lock-out, for the failure
// that emptied the bucket: later failures while it is empty are not audited.
func (s *Server) auditLockout(c *fiber.Ctx, user, ip, key string) {
	principalName := user
	if principalName == "" {
		principalName = "anonymous"
	}
	rec := AuditRecord{Time: s.now(), Principal: principalName, Method: methodLabel(c),
		Route: routeLabel(c), Path: escapeControl(c.Path()), RequestID: requestID(c),
		Status: 429, Result: "locked", IP: ip,
		Detail: "failed credentials locked out by " + key + "; further failures are refused 429 and not audited until the bucket refills"}
	s.writeAudit(rec)
}
