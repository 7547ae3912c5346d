package protocol

import "fmt"

// MaxNameLength bounds stream prefixes, consumer group names and member ids.
const MaxNameLength = 200

// ValidateName checks a stream prefix or consumer group name: 1–200 bytes of
// ASCII letters, digits, '.', '_' and '-'. Braces, colons, slashes and
// whitespace are refused because they change the meaning of Redis keys
// (hash tags, key separators).
func ValidateName(kind, s string) error {
	return validate(kind, s, false)
}

// ValidateMemberID checks a member id: like ValidateName, and ':' is also
// allowed so that IPv6 pod addresses can be used.
func ValidateMemberID(s string) error {
	return validate("memberId", s, true)
}

func validate(kind, s string, colon bool) error {
	if s == "" {
		return fmt.Errorf("%s must not be empty", kind)
	}
	if len(s) > MaxNameLength {
		return fmt.Errorf("%s is %d bytes long, the limit is %d", kind, len(s), MaxNameLength)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		case c == ':' && colon:
		default:
			return fmt.Errorf("%s %q has a character that is not allowed at byte %d: use letters, digits, '.', '_' and '-'", kind, s, i)
		}
	}
	return nil
}
