package source

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ByteSize is a size in bytes. It parses plain integers ("1048576") and
// sizes with a unit ("1MiB", "512KiB", "1.5MB"); binary units are KiB, MiB,
// GiB (also Ki, Mi, Gi), decimal units KB, MB, GB; units are case-insensitive.
type ByteSize int64

// Binary byte size units.
const (
	KiB ByteSize = 1 << 10
	MiB ByteSize = 1 << 20
	GiB ByteSize = 1 << 30
)

var byteUnits = map[string]float64{"": 1, "b": 1, "kib": 1 << 10, "ki": 1 << 10, "mib": 1 << 20, "mi": 1 << 20,
	"gib": 1 << 30, "gi": 1 << 30, "kb": 1e3, "mb": 1e6, "gb": 1e9}

// ParseByteSize parses a byte size such as "1MiB", "64KiB", "1.5MB" or "1048576".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	f, err := strconv.ParseFloat(t[:i], 64)
	mult, ok := byteUnits[strings.ToLower(strings.TrimSpace(t[i:]))]
	switch v := f * mult; {
	case err != nil || !ok:
		return 0, fmt.Errorf("invalid byte size %q (use e.g. 1MiB, 512KiB, 1048576)", s)
	case v > math.MaxInt64/2:
		return 0, fmt.Errorf("byte size %q is too large", s)
	case v != math.Trunc(v):
		return 0, fmt.Errorf("byte size %q is not a whole number of bytes", s)
	default:
		return ByteSize(v), nil
	}
}

// String renders the size with the largest binary unit that divides it
// exactly ("1MiB", "1536KiB", "1000B").
func (b ByteSize) String() string {
	for i, u := range []ByteSize{GiB, MiB, KiB} {
		if b != 0 && b%u == 0 {
			return strconv.FormatInt(int64(b/u), 10) + []string{"GiB", "MiB", "KiB"}[i]
		}
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

// MarshalText implements encoding.TextMarshaler.
func (b ByteSize) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (b *ByteSize) UnmarshalText(text []byte) error {
	v, err := ParseByteSize(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Set implements pflag.Value (--http.body-limit=1MiB).
func (b *ByteSize) Set(s string) error { return b.UnmarshalText([]byte(s)) }

// Type implements pflag.Value.
func (b *ByteSize) Type() string { return "bytesize" }
