package auth

import (
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/redisstream/coordinator/api/httpx"

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
// Unknown usernames get buckets of their own (same rate and burst, kept
// apart so that a flood of made-up names cannot evict a real user's
// bucket), so that a name's answers do not depend on whether it is
// configured. The rules, for Basic credentials (name, password) from
// address A:
//
//   - a name whose bucket at A is empty is refused 429 without a check,
//     known or not;
//   - otherwise, when A is not locked, the password is checked with bcrypt
//     (an unknown name against a dummy hash: authenticator.checkPassword);
//   - when A is locked, a configured user's password is still checked: a
//     real user behind the same address (NAT, proxy) passes with the right
//     password, and the cost is bounded by that user's own bucket at A. An
//     unknown name is not checked but answered after the time a check takes
//     on this node (checkcost.go): the same answer at the same time, without
//     the CPU, so a stream of made-up names is no CPU sink;
//   - a failure while A is locked answers 429, known and unknown names alike.
//
// So status and timing are the same for known and unknown names on every
// path (a known user whose password was verified recently answers faster,
// but only with its right password).
//
// A bearer token is cheap to check, so it is always checked; a bad token
// counts against A. 429 carries Retry-After (whole seconds) and the standard
// error body. The failure that empties a bucket writes one audit record
// (result "locked"): one per burst, not one per attempt (an unknown name's
// bucket writes none: its address's lock-out is audited). Metrics:
// rsc_auth_failures_total{outcome="failed"|"locked"}.

type failureLimiter struct {
	addr    *limiter // key: address
	user    *limiter // key: user + "\x00" + address, configured users
	unknown *limiter // key: name + "\x00" + address, names not configured
}

func newFailureLimiter(cfg Config, now func() time.Time) *failureLimiter {
	a := cfg.Auth
	return &failureLimiter{addr: newLimiter(a.FailedAuthPerAddressRate, a.FailedAuthPerAddressBurst, now),
		user:    newLimiter(a.FailedAuthPerUserRate, a.FailedAuthPerUserBurst, now),
		unknown: newLimiter(a.FailedAuthPerUserRate, a.FailedAuthPerUserBurst, now)}
}

// authRefusal is a 429 for credentials refused by the failure limiter.
func authRefusal(wait time.Duration, key string) error {
	secs := int(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return &httpx.Error{Status: 429, Code: protocol.CodeRateLimited,
		Msg:        "too many failed credentials from this client (" + key + "); retry after " + strconv.Itoa(secs) + "s with the right credentials",
		RetryAfter: secs}
}

const (
	keyFailAddr = "auth.failed-auth-per-address-burst"
	keyFailUser = "auth.failed-auth-per-user-burst"
)

// authenticateLimited is authenticate under the failure limiter. It returns
// the principal, or the error to answer (401 or 429).
func (s *Guard) authenticateLimited(c *fiber.Ctx, header string, need Access) (Principal, error) {
	ip := c.IP()
	name, basic := basicUser(header)
	known := basic && s.auth.known(name)
	names := s.fails.unknown
	if known {
		names = s.fails.user
	}
	if basic {
		if locked, wait := names.blocked(name + "\x00" + ip); locked {
			s.metrics.AuthFailure("locked")
			return Principal{}, authRefusal(wait, keyFailUser)
		}
	}
	var p Principal
	var user string
	ok := false
	if addrLocked, _ := s.fails.addr.blocked(ip); basic && addrLocked && !known {
		WaitLikeCheck(s.auth.cost.average()) // no bcrypt for a made-up name at a locked address
	} else {
		p, user, ok = s.auth.authenticate(header)
	}
	if ok && p.bearer && s.gens != nil {
		// Revoked tokens (tokengen.go): WRITE and ADMIN routes fail closed
		// when the generations cannot be read, the others fail open.
		strict := need == AccessWrite || need == AccessAdmin
		gen, fresh := s.gens.generation(p.name, strict)
		if strict && !fresh {
			return Principal{}, &httpx.Error{Status: http.StatusServiceUnavailable, Code: protocol.CodeStoreUnavailable, RetryAfter: 1,
				Msg: "token revocations cannot be read from the store: this route refuses bearer tokens until they can; retry, or use Basic credentials"}
		}
		ok = p.tokenGen >= gen
	}
	if ok {
		return p, nil
	}
	if header == "" {
		return Principal{}, httpx.New(401, protocol.CodeUnauthenticated, "missing or invalid credentials")
	}
	s.metrics.AuthFailure("failed")
	s.log.Warn("authentication failed: wrong or unknown credentials; repeated failures from this address are refused 429",
		"ip", ip, "user", user, "route", httpx.RouteLabel(c))
	addrOK, addrEmptied, addrWait := s.fails.addr.take(ip)
	if addrEmptied {
		s.auditLockout(c, "", ip, keyFailAddr)
	}
	if basic {
		// Unknown names are not audited: the address's lock-out is.
		if _, emptied, _ := names.take(name + "\x00" + ip); emptied && known {
			s.auditLockout(c, name, ip, keyFailUser)
		}
	}
	if !addrOK {
		return Principal{}, authRefusal(addrWait, keyFailAddr)
	}
	return Principal{}, httpx.New(401, protocol.CodeUnauthenticated, "missing or invalid credentials")
}

// auditLockout writes the one audit record of a lock-out, for the failure
// that emptied the bucket: later failures while it is empty are not audited.
func (s *Guard) auditLockout(c *fiber.Ctx, user, ip, key string) {
	principalName := user
	if principalName == "" {
		principalName = "anonymous"
	}
	rec := AuditRecord{Time: s.now(), Principal: principalName, Method: httpx.MethodLabel(c),
		Route: httpx.RouteLabel(c), Path: escapeControl(c.Path()), RequestID: httpx.RequestID(c),
		Status: 429, Result: "locked", IP: ip,
		Detail: "failed credentials locked out by " + key + "; further failures are refused 429 and not audited until the bucket refills"}
	s.writeAudit(rec)
}
