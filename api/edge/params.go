package edge

import (
	"net/url"
	"strings"

	"github.com/redisstream/coordinator/api/httpx"

	"github.com/gofiber/fiber/v2"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Path segments arrive percent-encoded (the router matches the raw path).
// Each is decoded once, then validated with protocol.ValidateName or
// ValidateMemberID: "orders%3Av2", "a%20b", "%EC%82%AC%EC%9A%A9%EC%9E%90"
// (사용자) and "%2F" are names like any other; control characters ("%00",
// "%0A"), blank names, invalid UTF-8, names over protocol.MaxNameLength and
// braces in a stream prefix ("%7B") are refused with 400 INVALID_ARGUMENT.
// Double-encoded forms ("%257B") decode once, to a literal "%7B". The result is copied: fiber's
// strings alias a buffer that is reused after the handler returns, and the
// Service may keep what it is given.

// pathName returns path parameter key, decoded and validated as a name of
// the given kind ("streamPrefix", "consumerGroup", "reshardingId").
func PathName(c *fiber.Ctx, key, kind string) (string, error) {
	return Name(c.Params(key), kind)
}

// checkName decodes and validates a raw path segment as a name of the given
// kind (a typed input's path field: inputs.go).
func Name(raw, kind string) (string, error) {
	v, err := unescapeRaw(raw, kind)
	if err != nil {
		return "", err
	}
	if err := protocol.ValidateName(kind, v); err != nil {
		return "", nameError(err)
	}
	return strings.Clone(v), nil
}

// pathMemberID returns the memberId path parameter, decoded and validated.
func PathMemberID(c *fiber.Ctx) (string, error) {
	v, err := Unescape(c, "memberId", "memberId")
	if err != nil {
		return "", err
	}
	if err := protocol.ValidateMemberID(v); err != nil {
		return "", nameError(err)
	}
	return strings.Clone(v), nil
}

func Unescape(c *fiber.Ctx, key, kind string) (string, error) {
	return unescapeRaw(c.Params(key), kind)
}

func unescapeRaw(raw, kind string) (string, error) {
	if strings.IndexByte(raw, '%') < 0 {
		return raw, nil
	}
	v, err := url.PathUnescape(raw)
	if err != nil {
		return "", httpx.Invalid("%s: invalid percent-encoding in the path", kind)
	}
	return v, nil
}

// streamGroup returns the validated :streamPrefix and :consumerGroup.
func StreamGroup(c *fiber.Ctx) (string, string, error) {
	p, err := PathName(c, "streamPrefix", "streamPrefix")
	if err != nil {
		return "", "", err
	}
	g, err := PathName(c, "consumerGroup", "consumerGroup")
	if err != nil {
		return "", "", err
	}
	return p, g, nil
}

// emptySegment reports whether path (as requested) has an empty segment
// under one of our prefixes, e.g. /coord/v1/streams//groups/g: such a
// request matches no route, and is answered 400 rather than 404.
func EmptySegment(path string) bool {
	if !strings.HasPrefix(path, "/coord/v1/") && !strings.HasPrefix(path, "/debug/") {
		return false
	}
	return strings.Contains(path, "//") || strings.HasSuffix(path, "/")
}

// nameError is the 400 for a name protocol.ValidateName refused, without the
// package prefix.
func nameError(err error) error {
	return httpx.Invalid("%s", strings.TrimPrefix(err.Error(), protocol.ErrInvalidName.Error()+": "))
}
