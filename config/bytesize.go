package config

import "github.com/redisstream/coordinator/config/source"

// ByteSize is a size in bytes (config/source): plain integers ("1048576")
// or sizes with a unit ("1MiB", "512KiB", "1.5MB").
type ByteSize = source.ByteSize

// Binary byte size units.
const (
	KiB = source.KiB
	MiB = source.MiB
	GiB = source.GiB
)

// ParseByteSize parses a byte size such as "1MiB", "64KiB", "1.5MB" or "1048576".
func ParseByteSize(s string) (ByteSize, error) { return source.ParseByteSize(s) }
