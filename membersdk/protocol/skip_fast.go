package protocol

// maxSkipDepth bounds the nesting of ignored (unknown) field values the fast
// path skips; deeper values go to the reference path.
const maxSkipDepth = 64

// skip validates and skips any JSON value (an unknown field's).
func (s *scanner) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch s.next() {
	case '{':
		s.i++
		if s.eat('}') {
			return true
		}
		for {
			if !s.skipString() || !s.eat(':') || !s.skip(depth+1) {
				return false
			}
			if s.eat(',') {
				continue
			}
			return s.eat('}')
		}
	case '[':
		s.i++
		if s.eat(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.eat(',') {
				continue
			}
			return s.eat(']')
		}
	case '"':
		return s.skipString()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		return s.skipNumber()
	}
}

// skipString skips a string, escapes included (its content is ignored).
func (s *scanner) skipString() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(s.b)-s.i < 4 {
					return false
				}
				for _, h := range s.b[s.i : s.i+4] {
					if !isHex(h) {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipNumber skips a number of the JSON grammar.
func (s *scanner) skipNumber() bool {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	start := s.i
	n := digits()
	if n == 0 || n > 1 && s.b[start] == '0' {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// object walks one JSON object, calling field for each key. field returns
