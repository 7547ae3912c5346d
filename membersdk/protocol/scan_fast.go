package protocol

import "unicode/utf8"

// The JSON scanner of the heartbeat fast path (decode_fast.go): tokens, objects and the field
// bookkeeping, each giving up (false) on anything the fast path does not take.

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips whitespace and returns the next byte (0 at the end).
func (s *scanner) next() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// eat consumes c (after whitespace) and reports whether it was there.
func (s *scanner) eat(c byte) bool {
	if s.next() == c {
		s.i++
		return true
	}
	return false
}

// plain reads a string without escapes or control characters whose bytes are
// valid UTF-8 and returns its content (aliasing the body).
func (s *scanner) plain() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start, ascii := s.i, true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(v) {
				return nil, false
			}
			return v, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
		s.i++
	}
	return nil, false
}

// integer reads a JSON integer (no fraction, no exponent) that fits an int64.
func (s *scanner) integer() (int64, bool) {
	s.ws()
	neg := false
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	start := s.i
	var v uint64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = v*10 + uint64(s.b[s.i]-'0')
		s.i++
	}
	n := s.i - start
	switch {
	case n == 0 || n > 18: // 18 digits never overflow an int64
		return 0, false
	case n > 1 && s.b[start] == '0': // leading zero: a syntax error
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// false to give up. An unknown key must be skipped by field (s.skip).
func (s *scanner) object(field func(key []byte) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		key, ok := s.plain()
		if !ok || !s.eat(':') || !field(key) {
			return false
		}
		if s.eat(',') {
			continue
		}
		return s.eat('}')
	}
}

// unknown skips the value of a key that is none of names, unless the key
// could match one of them the way encoding/json matches (case-insensitively,
// with Unicode folding): then only the reference path can tell.
func (s *scanner) unknown(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return false
		}
	}
	for _, n := range names {
		if asciiEqualFold(key, n) {
			return false
		}
	}
	return s.skip(1)
}

func asciiEqualFold(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x|0x20 >= 'a' && x|0x20 <= 'z' {
			x |= 0x20
			y |= 0x20
		}
		if x != y {
			return false
		}
	}
	return true
}

// once marks field bit f as seen; false if it already was (a duplicate).
func once(seen *uint32, f uint32) bool {
	if *seen&f != 0 {
		return false
	}
	*seen |= f
	return true
}
