package protocol

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameLength bounds stream prefixes, consumer group names and member ids,
// in bytes of UTF-8.
const MaxNameLength = 200

// ErrInvalidName is wrapped by every error of ValidateName and
// ValidateMemberID.
var ErrInvalidName = errors.New("protocol: invalid name")

// Names (SPEC §5): a stream prefix, consumer group name, member id or
// resharding id is any non-blank UTF-8 string without control characters,
// up to MaxNameLength bytes, as the reference coordinator accepts them:
// "orders:v2", "svc:workers", "사용자", "with space" are all valid, URL-escaped
// in paths. A stream prefix may not contain '{' or '}': the shard keys
// "{streamPrefix}:{shardIndex}" would then carry a Redis Cluster hash tag
// and change slot. Everything else is made safe where names become Redis
// keys (persistence/redisstore escapes them), so no name can collide with
// another group's keys.

// ValidateName checks a name of the given kind ("streamPrefix",
// "consumerGroup", "reshardingId"; the kind names the field in errors). A
// "streamPrefix" additionally may not contain braces.
func ValidateName(kind, s string) error {
	if err := validate(kind, s); err != nil {
		return err
	}
	if kind == "streamPrefix" {
		if i := strings.IndexAny(s, "{}"); i >= 0 {
			return fmt.Errorf("%w: streamPrefix %q contains %q at byte %d: braces are not allowed in a stream prefix (they would make the shard keys a Redis Cluster hash tag)", ErrInvalidName, s, s[i], i)
		}
	}
	return nil
}

// ValidateStreamPrefix is ValidateName("streamPrefix", s).
func ValidateStreamPrefix(s string) error { return ValidateName("streamPrefix", s) }

// ValidateMemberID checks a member id with the common rule (IPv6 pod
// addresses such as "fd00::1-m0" included).
func ValidateMemberID(s string) error { return validate("memberId", s) }

// MaxIncarnationIDLength bounds a heartbeat's incarnationId, in bytes: it is
// stored with the member record. A protocol limit (no config key), like
// MaxNameLength.
const MaxIncarnationIDLength = 128

// ValidateIncarnationID checks a heartbeat's incarnationId: "" (absent) or a
// name (non-blank UTF-8 without control characters) of at most
// MaxIncarnationIDLength bytes.
func ValidateIncarnationID(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxIncarnationIDLength {
		return fmt.Errorf("%w: incarnationId is %d bytes long, the limit is %d (send a short random string, e.g. a UUID, once per process)", ErrInvalidName, len(s), MaxIncarnationIDLength)
	}
	return validate("incarnationId", s)
}

// MaxInstanceIDLength bounds a heartbeat's instanceId, in bytes: it is
// stored with the member record. A protocol limit (no config key).
const MaxInstanceIDLength = 128

// ValidateInstanceID checks a heartbeat's instanceId: "" (absent) or a name
// (non-blank UTF-8 without control characters) of at most
// MaxInstanceIDLength bytes.
func ValidateInstanceID(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxInstanceIDLength {
		return fmt.Errorf("%w: instanceId is %d bytes long, the limit is %d (use a stable short name, e.g. the pod name)", ErrInvalidName, len(s), MaxInstanceIDLength)
	}
	return validate("instanceId", s)
}

func validate(kind, s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("%w: %s must not be empty or blank", ErrInvalidName, kind)
	}
	if len(s) > MaxNameLength {
		return fmt.Errorf("%w: %s is %d bytes long, the limit is %d", ErrInvalidName, kind, len(s), MaxNameLength)
	}
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return fmt.Errorf("%w: %s %q is not valid UTF-8 at byte %d", ErrInvalidName, kind, s, i)
			}
		}
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: %s %q has a control character (U+%04X) at byte %d", ErrInvalidName, kind, s, r, i)
		}
	}
	return nil
}
