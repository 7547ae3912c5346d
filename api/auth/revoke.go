package auth

import (
	"net/http"
	"strings"

	"github.com/redisstream/coordinator/api/edge"
	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// revokeTokens: POST /coord/v1/auth/users/:username/revoke-tokens
// {requestedBy, reason} → 200 RevokeTokensResponse. ADMIN only, audited and
// rate-limited like every admin change. Every token of the user issued
// before is refused: on this node at once, on the others within
// auth.token-revocation-window (tokengen.go). The user's password and its Basic
// credentials are untouched; it logs in again for a new token. A name no
// auth.users entry of this node has is still revoked (configured=false):
// during a rolling change of the configuration another node may have it.
// Auth off: 400 AUTHENTICATION_DISABLED.
func (s *Guard) RevokeTokens(c *fiber.Ctx) (protocol.RevokeTokensResponse, error) {
	var none protocol.RevokeTokensResponse
	if s.auth == nil {
		return none, httpx.New(http.StatusBadRequest, protocol.CodeAuthDisabled,
			"authentication is disabled on this server (no auth.users configured): there are no tokens to revoke")
	}
	user, err := edge.Unescape(c, "username", "username")
	if err != nil {
		return none, err
	}
	user = strings.Clone(user) // fiber's params alias the request buffer, reused after the request
	if strings.TrimSpace(user) == "" || strings.ContainsAny(user, ":") || len(user) > edge.MaxCredential {
		return none, httpx.Invalid("username %q is not a valid auth.users[].username (non-empty, no ':', at most %d bytes)", user, edge.MaxCredential)
	}
	if err := edge.Text("username", user, edge.MaxCredential, false); err != nil {
		return none, err
	}
	var req protocol.RevokeTokensRequest
	if err := edge.DecodeBody(c, &req); err != nil {
		return none, err
	}
	if err := edge.RequestedBy(req.RequestedBy); err != nil {
		return none, err
	}
	if err := edge.Text("reason", req.Reason, edge.MaxReason, true); err != nil {
		return none, err
	}
	if s.gens == nil {
		return none, &httpx.Error{Status: http.StatusServiceUnavailable, Code: protocol.CodeStoreUnavailable, RetryAfter: 1,
			Msg: "this node has no store for token generations: tokens cannot be revoked here"}
	}
	ctx, cancel := s.reqCtx(c)
	defer cancel()
	gen, err := s.gens.revoke(ctx, user)
	if err != nil {
		return none, err
	}
	s.log.Info("tokens revoked", "user", user, "tokenGeneration", gen, "requestId", httpx.RequestID(c))
	return protocol.RevokeTokensResponse{Username: user, TokenGeneration: gen, Configured: s.auth.known(user),
		OtherNodesWithinSeconds: int(s.cfg.Auth.TokenRevocationWindow.Seconds())}, nil
}
