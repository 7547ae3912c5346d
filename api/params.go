package api

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/api/protocol"
)

// Path segments arrive percent-encoded (the router matches the raw path).
// Each is decoded once, then validated with protocol.ValidateName or
// ValidateMemberID, so "%2F", "%7B", "%20", unicode and double-encoded
// forms are refused with 400 INVALID_ARGUMENT. The result is copied: fiber's
// strings alias a buffer that is reused after the handler returns, and the
// Service may keep what it is given.

// pathName returns path parameter key, decoded and validated as a name of
// the given kind ("streamPrefix", "consumerGroup", "reshardingId").
func pathName(c *fiber.Ctx, key, kind string) (string, error) {
	v, err := unescape(c, key, kind)
	if err != nil {
		return "", err
	}
	if err := protocol.ValidateName(kind, v); err != nil {
		return "", invalidArgument("%v", err)
	}
	return strings.Clone(v), nil
}

// pathMemberID returns the memberId path parameter, decoded and validated.
func pathMemberID(c *fiber.Ctx) (string, error) {
	v, err := unescape(c, "memberId", "memberId")
	if err != nil {
		return "", err
	}
	if err := protocol.ValidateMemberID(v); err != nil {
		return "", invalidArgument("%v", err)
	}
	return strings.Clone(v), nil
}

func unescape(c *fiber.Ctx, key, kind string) (string, error) {
	raw := c.Params(key)
	if strings.IndexByte(raw, '%') < 0 {
		return raw, nil
	}
	v, err := url.PathUnescape(raw)
	if err != nil {
		return "", invalidArgument("%s: invalid percent-encoding in the path", kind)
	}
	return v, nil
}

// streamGroup returns the validated :streamPrefix and :consumerGroup.
func streamGroup(c *fiber.Ctx) (string, string, error) {
	p, err := pathName(c, "streamPrefix", "streamPrefix")
	if err != nil {
		return "", "", err
	}
	g, err := pathName(c, "consumerGroup", "consumerGroup")
	if err != nil {
		return "", "", err
	}
	return p, g, nil
}

// emptySegment reports whether path (as requested) has an empty segment
// under one of our prefixes, e.g. /coord/v1/streams//groups/g: such a
// request matches no route, and is answered 400 rather than 404.
func emptySegment(path string) bool {
	if !strings.HasPrefix(path, "/coord/v1/") && !strings.HasPrefix(path, "/debug/") {
		return false
	}
	return strings.Contains(path, "//") || strings.HasSuffix(path, "/")
}
