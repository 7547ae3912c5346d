package api

import (
	"bytes"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/protocol"
)

// login: POST /coord/v1/auth/login → LoginResponse with a bearer token
// (tokens.go) valid for auth.token-ttl (default 7 days), carrying the user's
// configured roles. Credentials come from the body {username, password} or,
// when the body is empty or names no username (as the reference server
// accepts it), from Basic credentials in the Authorization header. A bearer
// token cannot be traded for a new one: a stolen token must not be renewable
// forever. Wrong credentials: 401. With auth off: 400
// AUTHENTICATION_DISABLED, saying that requests need no credentials here.
// Rate-limited per client IP.
func (s *Server) login(c *fiber.Ctx) error {
	if s.auth == nil {
		return newError(http.StatusBadRequest, protocol.CodeAuthDisabled,
			"authentication is disabled on this server (no auth.users configured): send requests without credentials, or configure auth.users and auth.token-secret to use tokens")
	}
	body, err := requestBody(c)
	if err != nil {
		return err
	}
	var req protocol.LoginRequest
	if len(bytes.TrimSpace(body)) > 0 {
		if err := decodeBody(c, &req); err != nil {
			return err
		}
	}
	var (
		user  string
		roles roleSet
	)
	if req.Username == "" && req.Password == "" {
		header := c.Get(fiber.HeaderAuthorization)
		if scheme, _, _ := strings.Cut(strings.TrimSpace(header), " "); !strings.EqualFold(scheme, "basic") {
			return newError(http.StatusUnauthorized, protocol.CodeUnauthenticated,
				"send {\"username\",\"password\"} in the body or Basic credentials in the Authorization header")
		}
		p, known, ok := s.auth.authenticate(header)
		if !ok {
			s.log.Warn("login failed", "ip", c.IP(), "user", known)
			c.Locals(auditUserKey, known)
			return newError(http.StatusUnauthorized, protocol.CodeUnauthenticated, "invalid credentials")
		}
		user, roles = p.name, p.roles
	} else {
		if err := checkLogin(req); err != nil {
			return err
		}
		cr, ok := s.auth.checkPassword(req.Username, req.Password)
		if !ok {
			known := ""
			if cr != nil {
				known = req.Username
			}
			s.log.Warn("login failed", "ip", c.IP(), "user", known)
			c.Locals(auditUserKey, known)
			return newError(http.StatusUnauthorized, protocol.CodeUnauthenticated, "invalid username or password")
		}
		user, roles = req.Username, cr.roles
	}
	c.Locals(auditUserKey, user)
	names := roles.names()
	token, exp, err := s.tokens.issue(user, names)
	if err != nil {
		return err
	}
	s.log.Info("login", "ip", c.IP(), "user", user, "roles", names, "requestId", requestID(c))
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(protocol.LoginResponse{
		AccessToken:      token,
		TokenType:        "Bearer",
		ExpiresAt:        exp.UTC().Format(time.RFC3339),
		ExpiresInSeconds: int64(s.cfg.Auth.TokenTTL / time.Second), // the token was issued just now
		Roles:            names,
	})
}
