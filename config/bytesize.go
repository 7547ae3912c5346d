package config

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

var byteUnits = map[string]float64{
	"":    1,
	"b":   1,
	"kib": 1 << 10, "ki": 1 << 10,
	"mib": 1 << 20, "mi": 1 << 20,
	"gib": 1 << 30, "gi": 1 << 30,
	"kb": 1e3,
	"mb": 1e6,
	"gb": 1e9,
}

// ParseByteSize parses a byte size such as "1MiB", "64KiB", "1.5MB" or "1048576".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := byteUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("invalid byte size %q (use e.g. 1MiB, 512KiB, 1048576)", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid byte size %q (use e.g. 1MiB, 512KiB, 1048576)", s)
	}
	v := f * mult
	if v > math.MaxInt64/2 {
		return 0, fmt.Errorf("byte size %q is too large", s)
	}
	if v != math.Trunc(v) {
		return 0, fmt.Errorf("byte size %q is not a whole number of bytes", s)
	}
	return ByteSize(v), nil
}

// String renders the size with the largest binary unit that divides it
// exactly ("1MiB", "1536KiB", "1000B").
func (b ByteSize) String() string {
	switch {
	case b != 0 && b%GiB == 0:
		return strconv.FormatInt(int64(b/GiB), 10) + "GiB"
	case b != 0 && b%MiB == 0:
		return strconv.FormatInt(int64(b/MiB), 10) + "MiB"
	case b != 0 && b%KiB == 0:
		return strconv.FormatInt(int64(b/KiB), 10) + "KiB"
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
