package config

import (
	"fmt"
	"strings"
)

// Runtime configures the Go runtime of the coordinator process.
type Runtime struct {
	MemoryLimit string `koanf:"memory-limit" default:"auto" validate:"memlimit" help:"soft memory limit of the process (Go GOMEMLIMIT): auto = GOMEMLIMIT if set, else 90% of the container's cgroup memory limit if it has one, else none; off = none; or a size such as 1GiB (>= 32MiB). Near the limit garbage is collected more often (more CPU) to stay under it"`
}

// Memory limit values besides a size.
const (
	MemoryLimitAuto = "auto"
	MemoryLimitOff  = "off"
	// MinMemoryLimit: below it the collector would run nearly all the time.
	MinMemoryLimit = 32 * MiB
	// AutoMemoryLimitPercent is the share of the cgroup memory limit "auto" sets: the rest is
	// left for what the Go limit does not count (the kernel's page cache of the cgroup,
	// memory the runtime has not yet returned).
	AutoMemoryLimitPercent = 90
)

// MemoryLimitSetting is runtime.memory-limit parsed: Auto, Off, or Bytes (> 0).
type MemoryLimitSetting struct {
	Auto  bool
	Off   bool
	Bytes ByteSize
}

// ParseMemoryLimit parses a runtime.memory-limit value: "auto", "off" or a byte size.
func ParseMemoryLimit(s string) (MemoryLimitSetting, error) {
	word := strings.ToLower(strings.TrimSpace(s))
	switch b, err := ParseByteSize(s); {
	case word == MemoryLimitAuto || word == "":
		return MemoryLimitSetting{Auto: true}, nil
	case word == MemoryLimitOff:
		return MemoryLimitSetting{Off: true}, nil
	case err != nil:
		return MemoryLimitSetting{}, fmt.Errorf("must be auto, off or a size such as 1GiB: %w", err)
	case b < MinMemoryLimit:
		return MemoryLimitSetting{}, fmt.Errorf("must be at least %s (or off)", MinMemoryLimit)
	default:
		return MemoryLimitSetting{Bytes: b}, nil
	}
}
