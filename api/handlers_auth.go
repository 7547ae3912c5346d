package api

import (
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/protocol"
)

// login: POST /coord/v1/auth/login {username, password} → LoginResponse with
// a bearer token (tokens.go) valid for auth.token-ttl, carrying the user's
// configured roles. Wrong credentials: 401. With auth off: 404 (there is
// nothing to log in to). Rate-limited per client IP.
func (s *Server) login(c *fiber.Ctx) error {
	if s.auth == nil {
		return newError(http.StatusNotFound, protocol.CodeNotFound, "authentication is disabled on this server (no users configured)")
	}
	var req protocol.LoginRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if err := checkLogin(req); err != nil {
		return err
	}
	cr, ok := s.auth.checkPassword(req.Username, req.Password)
	if !ok {
		user := ""
		if cr != nil {
			user = req.Username
		}
		s.log.Warn("login failed", "ip", c.IP(), "user", user)
		return newError(http.StatusUnauthorized, protocol.CodeUnauthenticated, "invalid username or password")
	}
	roles := cr.roles.names()
	token, exp, err := s.tokens.issue(req.Username, roles)
	if err != nil {
		return err
	}
	s.log.Info("login", "ip", c.IP(), "user", req.Username, "roles", roles)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(protocol.LoginResponse{
		AccessToken:      token,
		TokenType:        "Bearer",
		ExpiresAt:        exp.UTC().Format(time.RFC3339),
		ExpiresInSeconds: int64(exp.Sub(s.now()).Round(time.Second).Seconds()),
		Roles:            roles,
	})
}
