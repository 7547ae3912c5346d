package authz

import "strings"

// Scope limits a user to some names (stream prefixes for
// auth.users[].streams, consumer groups for auth.users[].groups): a pattern
// is a name ("orders") or a prefix followed by '*' ("orders:*"). nil allows
// every name.
type Scope []string

// NewScope returns the scope of patterns; nil (every name) when patterns is
// empty or contains "*".
func NewScope(patterns []string) Scope {
	var s Scope
	for _, p := range patterns {
		if p == "*" {
			return nil
		}
		s = append(s, p)
	}
	return s
}

// Allows reports whether name is in scope: equal to a pattern, or starting
// with a pattern's text before its trailing '*'.
func (s Scope) Allows(name string) bool {
	if s == nil {
		return true
	}
	for _, p := range s {
		if head, wild := strings.CutSuffix(p, "*"); wild {
			if strings.HasPrefix(name, head) {
				return true
			}
		} else if p == name {
			return true
		}
	}
	return false
}

func (s Scope) String() string { return "[" + strings.Join(s, ", ") + "]" }
