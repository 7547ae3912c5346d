package api

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"github.com/redisstream/coordinator/api/protocol"
)

// Authentication: HTTP Basic or "Authorization: Bearer <token>" (tokens.go).
// Authorization: every route declares the access it needs (routes.go):
//
//	accessPublic    no credentials (health, login)
//	accessRead      READ (WRITE implies READ)
//	accessWrite     WRITE
//	accessRouting   READ or MEMBER (producer routing: the reference's producers
//	                hold read-only credentials)
//	accessMember    MEMBER when auth.authenticate-member-api is on, else public (heartbeats)
//	accessProtocol  any role when auth.authenticate-member-api is on, else public
//	                (compatibility: what member clients read before heartbeating)
//
// Missing or wrong credentials: 401 UNAUTHENTICATED with
// WWW-Authenticate: Basic realm="rsc" (not to scripts that send
// X-Requested-With: XMLHttpRequest, such as the web console: a browser would
// answer the challenge with its own dialog). Valid credentials without the role:
// 403 FORBIDDEN. With no users configured authentication is off and every
// request is allowed (development only); rate limits then key on client IP.
// Passwords are compared with bcrypt for hashes and in constant time for
// plain ones; neither passwords, tokens nor Authorization headers are logged.

type access uint8

const (
	accessPublic access = iota
	accessRead
	accessWrite
	accessMember
	accessProtocol
	accessRouting
)

type roleSet uint8

const (
	roleRead roleSet = 1 << iota
	roleWrite
	roleMember
)

func parseRole(s string) (roleSet, bool) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case RoleRead:
		return roleRead, true
	case RoleWrite:
		return roleWrite | roleRead, true // WRITE implies READ
	case RoleMember:
		return roleMember, true
	case RoleAdmin:
		return roleRead | roleWrite | roleMember, true
	case RoleMonitor:
		return roleRead, true
	}
	return 0, false
}

func (r roleSet) names() []string {
	out := []string{}
	for _, n := range []struct {
		bit  roleSet
		name string
	}{{roleRead, RoleRead}, {roleWrite, RoleWrite}, {roleMember, RoleMember}} {
		if r&n.bit != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// principal is who a request runs as; stored in the fiber context locals.
type principal struct {
	name    string
	roles   roleSet
	streams streamScope
}

const principalKey = "rsc.principal"

type credential struct {
	roles    roleSet
	streams  streamScope
	bcrypt   []byte   // bcrypt hash, or nil
	plainSum [32]byte // sha256 of a plain password
}

// authenticator checks credentials. Safe for concurrent use.
type authenticator struct {
	users  map[string]*credential
	tokens *tokenSigner
	dummy  []byte // bcrypt hash checked for unknown users, to even out timing

	cacheKey [32]byte
	mu       sync.Mutex
	verified map[string][32]byte // user → HMAC(cacheKey, password) last accepted by bcrypt
}

func isBcrypt(p string) bool {
	return strings.HasPrefix(p, "$2a$") || strings.HasPrefix(p, "$2b$") || strings.HasPrefix(p, "$2y$")
}

func checkBcryptHash(h string) error {
	_, err := bcrypt.Cost([]byte(h))
	return err
}

func newAuthenticator(cfg Config, signer *tokenSigner) *authenticator {
	a := &authenticator{users: map[string]*credential{}, tokens: signer, verified: map[string][32]byte{}}
	_, _ = rand.Read(a.cacheKey[:])
	dummyCost := 0
	for _, u := range cfg.Auth.Users {
		cr := &credential{streams: newStreamScope(u.Streams)}
		for _, r := range u.Roles {
			rs, _ := parseRole(r)
			cr.roles |= rs
		}
		if isBcrypt(u.Password) {
			cr.bcrypt = []byte(u.Password)
			if c, err := bcrypt.Cost(cr.bcrypt); err == nil && c > dummyCost {
				dummyCost = c
			}
		} else {
			cr.plainSum = sha256.Sum256([]byte(u.Password))
		}
		a.users[u.Username] = cr
	}
	if dummyCost > 0 {
		var pw [16]byte
		_, _ = rand.Read(pw[:])
		a.dummy, _ = bcrypt.GenerateFromPassword(pw[:], dummyCost)
	}
	return a
}

// checkPassword returns the user's credential when password is right.
func (a *authenticator) checkPassword(user, password string) (*credential, bool) {
	cr, known := a.users[user]
	if !known {
		// Spend about the same time as for a known user.
		if a.dummy != nil {
			_ = bcrypt.CompareHashAndPassword(a.dummy, []byte(password))
		}
		sum := sha256.Sum256([]byte(password))
		subtle.ConstantTimeCompare(sum[:], a.cacheKey[:])
		return nil, false
	}
	if cr.bcrypt == nil {
		sum := sha256.Sum256([]byte(password))
		return cr, subtle.ConstantTimeCompare(sum[:], cr.plainSum[:]) == 1
	}
	// bcrypt is deliberately slow; remember the last password that passed
	// (as a keyed hash) so that clients sending Basic credentials on every
	// request do not pay it each time.
	mac := hmac.New(sha256.New, a.cacheKey[:])
	mac.Write([]byte(user))
	mac.Write([]byte{0})
	mac.Write([]byte(password))
	var key [32]byte
	copy(key[:], mac.Sum(nil))
	a.mu.Lock()
	cached, ok := a.verified[user]
	a.mu.Unlock()
	if ok && subtle.ConstantTimeCompare(cached[:], key[:]) == 1 {
		return cr, true
	}
	if bcrypt.CompareHashAndPassword(cr.bcrypt, []byte(password)) != nil {
		return cr, false
	}
	a.mu.Lock()
	a.verified[user] = key
	a.mu.Unlock()
	return cr, true
}

// authenticate resolves the Authorization header to a principal. ok is false
// for missing, malformed or wrong credentials. knownUser is the username only
// when it names a configured user (safe to log).
func (a *authenticator) authenticate(header string) (p principal, knownUser string, ok bool) {
	scheme, value, found := strings.Cut(strings.TrimSpace(header), " ")
	if !found {
		return principal{}, "", false
	}
	value = strings.TrimSpace(value)
	switch strings.ToLower(scheme) {
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return principal{}, "", false
		}
		user, pass, found := strings.Cut(string(raw), ":")
		if !found {
			return principal{}, "", false
		}
		cr, good := a.checkPassword(user, pass)
		if cr != nil {
			knownUser = user
		}
		if !good {
			return principal{}, knownUser, false
		}
		return principal{name: user, roles: cr.roles, streams: cr.streams}, user, true
	case "bearer":
		claims, err := a.tokens.verify(value)
		if err != nil {
			return principal{}, "", false
		}
		cr, known := a.users[claims.Subject]
		if !known {
			return principal{}, "", false
		}
		var granted roleSet
		for _, r := range claims.Roles {
			if rs, ok := parseRole(r); ok {
				granted |= rs
			}
		}
		return principal{name: claims.Subject, roles: granted & cr.roles, streams: cr.streams}, claims.Subject, true
	}
	return principal{}, "", false
}

// require returns the middleware enforcing need on a route, or nil when the
// route needs no check (auth off, or a public route).
func (s *Server) require(need access) fiber.Handler {
	memberOpen := !s.cfg.Auth.AuthenticateMemberAPI
	if s.auth == nil || need == accessPublic || ((need == accessMember || need == accessProtocol) && memberOpen) {
		return nil
	}
	var want roleSet
	var wantName string
	switch need {
	case accessRead:
		want, wantName = roleRead, "READ"
	case accessWrite:
		want, wantName = roleWrite, "WRITE"
	case accessMember:
		want, wantName = roleMember, "MEMBER"
	case accessRouting:
		want, wantName = roleRead|roleMember, "READ or MEMBER"
	default:
		want, wantName = roleRead|roleWrite|roleMember, "READ, WRITE or MEMBER"
	}
	forbidden := newError(403, protocol.CodeForbidden, "this route needs the "+wantName+" role")
	return func(c *fiber.Ctx) error {
		p, user, ok := s.auth.authenticate(c.Get(fiber.HeaderAuthorization))
		if !ok {
			s.log.Warn("authentication failed", "ip", c.IP(), "user", user, "route", routeLabel(c))
			return newError(401, protocol.CodeUnauthenticated, "missing or invalid credentials")
		}
		if p.roles&want == 0 {
			return forbidden
		}
		if !p.streams.allowsRoute(c) {
			return newError(403, protocol.CodeForbidden, "user "+p.name+" is scoped to streams "+p.streams.String()+" (auth.users[].streams)")
		}
		c.Locals(principalKey, p)
		return c.Next()
	}
}

// principalName is the rate-limit key of the request's principal.
func principalName(c *fiber.Ctx) string {
	if p, ok := c.Locals(principalKey).(principal); ok {
		return p.name
	}
	return "ip:" + c.IP()
}
