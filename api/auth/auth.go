package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"github.com/redisstream/coordinator/api/httpx"
	"github.com/redisstream/coordinator/authz"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/membersdk/protocol"
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
//	accessAdmin     ADMIN (a user configured with the ADMIN role; its token
//	                grants it while it carries READ, WRITE and MEMBER)
//
// Missing or wrong credentials: 401 UNAUTHENTICATED with
// WWW-Authenticate: Basic realm="rsc" (not to scripts that send
// X-Requested-With: XMLHttpRequest, such as the web console: a browser would
// answer the challenge with its own dialog). Valid credentials without the role:
// 403 FORBIDDEN. With no users configured authentication is off and every
// request is allowed (development only); rate limits then key on client IP.
// Passwords are compared with bcrypt (plain ones are hashed at start-up, so
// every user and unknown names cost the same); failed credentials are
// limited per address and per user (authlimit.go); neither passwords, tokens
// nor Authorization headers are logged.

type Access uint8

const (
	AccessPublic Access = iota
	AccessRead
	AccessWrite
	AccessMember
	AccessProtocol
	AccessRouting
	AccessAdmin
)

// roleSet is a set of rights (authz.Roles: the decision is shared with the
// Redis mailbox).
type roleSet authz.Roles

const (
	roleRead   = roleSet(authz.RoleRead)
	roleWrite  = roleSet(authz.RoleWrite)
	roleMember = roleSet(authz.RoleMember)
	roleAdmin  = roleSet(authz.RoleAdmin) // only a user configured ADMIN: revoking tokens
)

// roleAll are the roles a token lists for an ADMIN user (the reference's
// names: the token never lists ADMIN itself).
const roleAll = roleSet(authz.RoleAll)

// parseRole maps a role name of config.Roles (checked by config) to its rights.
func parseRole(s string) (roleSet, bool) {
	r, ok := authz.ParseRole(s)
	return roleSet(r), ok
}

func (r roleSet) names() []string {
	out := []string{}
	for _, n := range []struct {
		bit  roleSet
		name string
	}{{roleRead, config.RoleRead}, {roleWrite, config.RoleWrite}, {roleMember, config.RoleMember}} {
		if r&n.bit != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// Principal is who a request runs as; stored in the fiber context locals.
type Principal struct {
	name    string
	roles   roleSet
	streams streamScope
	groups  streamScope // consumer groups (auth.users[].groups; groupscope.go)
	// bearer: authenticated by a token of generation tokenGen (tokengen.go).
	bearer   bool
	tokenGen int64
}

// Name is the principal's user name.
func (p Principal) Name() string { return p.name }

// PrincipalKey is the fiber Locals key of the request's Principal.
const PrincipalKey = "rsc.principal"

// decision is p as the shared authorization decision sees it.
func (p Principal) decision() authz.Principal {
	return authz.Principal{Name: p.name, Roles: authz.Roles(p.roles), Streams: authz.Scope(p.streams), Groups: authz.Scope(p.groups)}
}

type credential struct {
	roles    roleSet
	streams  streamScope
	bcrypt   []byte // bcrypt hash (plain passwords are hashed at start-up)
	password string // the configured value, for token fingerprints (tokenfp.go)
	groups   streamScope
}

// authenticator checks credentials. Safe for concurrent use.
type authenticator struct {
	users  map[string]*credential
	tokens *tokenSigner
	dummy  []byte // bcrypt hash checked for unknown users: the same cost as a known one

	cost     checkCost // how long a bcrypt check takes here (checkcost.go)
	now      func() time.Time
	cacheKey [32]byte
	mu       sync.Mutex
	verified map[string]verifiedEntry // configured user → the password bcrypt last accepted
}

// VerifiedTTL is how long a password bcrypt accepted is remembered. Short:
// the entry (an HMAC under a per-process random key) is what lets a memory
// snapshot test guesses quickly, so it lives only while the user is busy;
// and long enough that a member fleet heartbeating every few seconds with
// Basic credentials pays one bcrypt check per user per 2 minutes, not per
// request. The map holds at most one entry per configured user (unknown
// names are never cached), so its size is bounded by auth.users.
const VerifiedTTL = 2 * time.Minute

type verifiedEntry struct {
	mac   [32]byte // HMAC(cacheKey, user, password)
	until time.Time
}

// bcryptCompare is bcrypt.CompareHashAndPassword; a seam for tests that
// count the checks (unknown and known users must take the same path).
var BcryptCompare = bcrypt.CompareHashAndPassword

// BcryptGenerate is bcrypt.GenerateFromPassword, which hashes the plain
// passwords and the dummy at start-up; a seam for tests that build many
// authenticators from one configuration (they hash each password once).
var BcryptGenerate = bcrypt.GenerateFromPassword

// dummyPassword is what the dummy hash hashes: random, drawn once per
// process, never accepted (a check compares against it without its first
// byte).
var dummyPassword = func() []byte {
	var pw [16]byte
	_, _ = rand.Read(pw[:])
	return pw[:]
}()

func newAuthenticator(cfg Config, signer *tokenSigner) *authenticator {
	a := &authenticator{users: map[string]*credential{}, tokens: signer, verified: map[string]verifiedEntry{}, now: signer.now}
	_, _ = rand.Read(a.cacheKey[:])
	cost := bcrypt.MinCost
	for _, u := range cfg.Auth.Users {
		if c, err := bcrypt.Cost([]byte(u.Password)); config.IsBcrypt(u.Password) && err == nil && c > cost {
			cost = c
		}
	}
	for _, u := range cfg.Auth.Users {
		cr := &credential{streams: newStreamScope(u.Streams), groups: newStreamScope(u.Groups), password: u.Password}
		for _, r := range u.Roles {
			rs, _ := parseRole(r)
			cr.roles |= rs
		}
		if config.IsBcrypt(u.Password) {
			cr.bcrypt = []byte(u.Password)
		} else {
			// A plain password is checked like a hash of the highest
			// configured cost: its timing does not tell it from an unknown
			// user or a hashed one.
			cr.bcrypt, _ = BcryptGenerate([]byte(u.Password), cost)
		}
		a.users[u.Username] = cr
	}
	a.dummy, _ = BcryptGenerate(dummyPassword, cost)
	start := time.Now()
	_ = bcrypt.CompareHashAndPassword(a.dummy, dummyPassword[1:])
	a.cost.observe(time.Since(start))
	return a
}

// compare is a timed bcrypt check.
func (a *authenticator) compare(hash []byte, password string) error {
	start := time.Now()
	err := BcryptCompare(hash, []byte(password))
	a.cost.observe(time.Since(start))
	return err
}

func (a *authenticator) known(user string) bool { _, ok := a.users[user]; return ok }

// checkPassword returns the user's credential when password is right.
// Unknown users cost one bcrypt check, like known ones.
func (a *authenticator) checkPassword(user, password string) (*credential, bool) {
	cr, known := a.users[user]
	if !known {
		_ = a.compare(a.dummy, password)
		return nil, false
	}
	if a.cached(user, password) {
		return cr, true
	}
	if a.compare(cr.bcrypt, password) != nil {
		return cr, false
	}
	a.mu.Lock()
	a.verified[user] = verifiedEntry{mac: a.cacheMAC(user, password), until: a.now().Add(VerifiedTTL)}
	a.mu.Unlock()
	return cr, true
}

// cached reports whether password is the one bcrypt accepted for user in
// the last verifiedTTL (no bcrypt spent: clients sending Basic credentials
// on every request do not pay it each time).
func (a *authenticator) cached(user, password string) bool {
	key := a.cacheMAC(user, password)
	a.mu.Lock()
	e, ok := a.verified[user]
	if ok && !a.now().Before(e.until) {
		delete(a.verified, user)
		ok = false
	}
	a.mu.Unlock()
	return ok && subtle.ConstantTimeCompare(e.mac[:], key[:]) == 1
}

func (a *authenticator) cacheMAC(user, password string) [32]byte {
	mac := hmac.New(sha256.New, a.cacheKey[:])
	mac.Write([]byte(user))
	mac.Write([]byte{0})
	mac.Write([]byte(password))
	var key [32]byte
	copy(key[:], mac.Sum(nil))
	return key
}

// basicUser is the username of Basic credentials in header.
func basicUser(header string) (string, bool) {
	scheme, value, found := strings.Cut(strings.TrimSpace(header), " ")
	if !found || !strings.EqualFold(scheme, "basic") {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(value))
	if err != nil {
		return "", false
	}
	user, _, found := strings.Cut(string(raw), ":")
	return user, found
}

func isBearer(header string) bool {
	scheme, _, _ := strings.Cut(strings.TrimSpace(header), " ")
	return strings.EqualFold(scheme, "bearer")
}

// authenticate resolves the Authorization header to a principal. ok is false
// for missing, malformed or wrong credentials. knownUser is the username only
// when it names a configured user (safe to log).
func (a *authenticator) authenticate(header string) (p Principal, knownUser string, ok bool) {
	scheme, value, found := strings.Cut(strings.TrimSpace(header), " ")
	if !found {
		return Principal{}, "", false
	}
	value = strings.TrimSpace(value)
	switch strings.ToLower(scheme) {
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return Principal{}, "", false
		}
		user, pass, found := strings.Cut(string(raw), ":")
		if !found {
			return Principal{}, "", false
		}
		cr, good := a.checkPassword(user, pass)
		if cr != nil {
			knownUser = user
		}
		if !good {
			return Principal{}, knownUser, false
		}
		return Principal{name: user, roles: cr.roles, streams: cr.streams, groups: cr.groups}, user, true
	case "bearer":
		claims, err := a.tokens.verify(value)
		if err != nil {
			return Principal{}, "", false
		}
		cr, known := a.users[claims.Subject]
		if !known || !a.tokens.credentialMatches(claims, cr.password) {
			return Principal{}, "", false // user removed, or its password changed
		}
		var granted roleSet
		for _, r := range claims.Roles {
			if rs, ok := parseRole(r); ok {
				granted |= rs
			}
		}
		if granted&roleAll == roleAll {
			granted |= roleAdmin // kept only if the user is still configured ADMIN
		}
		return Principal{name: claims.Subject, roles: granted & cr.roles, streams: cr.streams, groups: cr.groups,
			bearer: true, tokenGen: claims.Gen}, claims.Subject, true
	}
	return Principal{}, "", false
}

// require returns the middleware enforcing need on a route, or nil when the
// route needs no check (auth off, or a public route).
func (s *Guard) Require(need Access) fiber.Handler {
	memberOpen := !s.cfg.Auth.AuthenticateMemberAPI
	if s.auth == nil || need == AccessPublic || ((need == AccessMember || need == AccessProtocol) && memberOpen) {
		return nil
	}
	var want roleSet
	var wantName string
	switch need {
	case AccessRead:
		want, wantName = roleRead, "READ"
	case AccessWrite:
		want, wantName = roleWrite, "WRITE"
	case AccessMember:
		want, wantName = roleMember, "MEMBER"
	case AccessRouting:
		want, wantName = roleRead|roleMember, "READ or MEMBER"
	case AccessAdmin:
		want, wantName = roleAdmin, "ADMIN"
	default:
		want, wantName = roleRead|roleWrite|roleMember, "READ, WRITE or MEMBER"
	}
	return func(c *fiber.Ctx) error {
		p, err := s.authenticateLimited(c, c.Get(fiber.HeaderAuthorization), need)
		if err != nil {
			return err
		}
		// Stored before the role and scope checks: a refusal is audited
		// under the principal that was refused, not as anonymous.
		c.Locals(PrincipalKey, p)
		if err := p.decision().Check(authz.Roles(want), wantName, routeName(c, "streamPrefix"), routeName(c, "consumerGroup")); err != nil {
			return httpx.New(403, protocol.CodeForbidden, err.Error())
		}
		return c.Next()
	}
}

// principalName is the rate-limit key of the request's principal.
func principalName(c *fiber.Ctx) string {
	if p, ok := c.Locals(PrincipalKey).(Principal); ok {
		return p.name
	}
	return "ip:" + c.IP()
}
