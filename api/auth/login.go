package auth

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// login: POST /coord/v1/auth/login → LoginResponse with a bearer token
// (tokens.go) valid for auth.token-ttl (default 7 days), carrying the user's
// configured roles. Credentials come from the body {username, password} or,
// when the body is empty or names no username (as the reference server
// accepts it), from Basic credentials in the Authorization header. A bearer
// token cannot be traded for a new one: a stolen token must not be renewable
// forever. Wrong credentials: 401. With auth off: 400
// AUTHENTICATION_DISABLED, saying that requests need no credentials here.
// Failed credentials are limited like on every route (authlimit.go).
func (s *Guard) Login(c *fiber.Ctx) (protocol.LoginResponse, error) {
	var none protocol.LoginResponse
	if s.auth == nil {
		return none, httpx.New(http.StatusBadRequest, protocol.CodeAuthDisabled,
			"authentication is disabled on this server (no auth.users configured): send requests without credentials, or configure auth.users and auth.token-secret to use tokens")
	}
	body, err := edge.RequestBody(c)
	if err != nil {
		return none, err
	}
	var req protocol.LoginRequest
	if len(bytes.TrimSpace(body)) > 0 {
		if err := edge.DecodeBody(c, &req); err != nil {
			return none, err
		}
	}
	header := c.Get(fiber.HeaderAuthorization)
	if req.Username != "" || req.Password != "" {
		if err := edge.Login(req); err != nil {
			return none, err
		}
		header = "Basic " + base64.StdEncoding.EncodeToString([]byte(req.Username+":"+req.Password))
	} else if scheme, _, _ := strings.Cut(strings.TrimSpace(header), " "); !strings.EqualFold(scheme, "basic") {
		return none, httpx.New(http.StatusUnauthorized, protocol.CodeUnauthenticated,
			"send {\"username\",\"password\"} in the body or Basic credentials in the Authorization header")
	}
	p, err := s.authenticateLimited(c, header, AccessPublic)
	if err != nil {
		if u, ok := basicUser(header); ok && s.auth.known(u) {
			c.Locals(auditUserKey, u)
		}
		return none, err
	}
	user, roles := p.name, p.roles
	c.Locals(auditUserKey, user)
	names := roles.names()
	var gen int64
	if s.gens != nil {
		// Never higher than the stored one: at worst the token is refused
		// after the next read, never accepted after a revocation.
		gen, _ = s.gens.generation(user, true)
	}
	token, exp, err := s.tokens.issue(user, names, s.auth.users[user].password, gen)
	if err != nil {
		return none, err
	}
	s.log.Info("login", "ip", c.IP(), "user", user, "roles", names, "requestId", httpx.RequestID(c))
	c.Set(fiber.HeaderCacheControl, "no-store")
	return protocol.LoginResponse{
		AccessToken:      token,
		TokenType:        "Bearer",
		ExpiresAt:        exp.UTC().Format(time.RFC3339),
		ExpiresInSeconds: int64(s.cfg.Auth.TokenTTL / time.Second), // the token was issued just now
		Roles:            names,
	}, nil
}
