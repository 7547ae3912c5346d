package main

import (
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/redisstream/coordinator/config"
)

// memoryLimit is the soft memory limit runtime.memory-limit resolves to: bytes (0 = none,
// keep = leave the runtime's own setting, i.e. GOMEMLIMIT) and where it came from, for the log.
type memoryLimit struct {
	bytes  int64
	keep   bool
	source string
}

// resolveMemoryLimit turns the setting into a limit. auto: GOMEMLIMIT (goMemLimit non-empty)
// as the runtime read it, else AutoMemoryLimitPercent of the cgroup memory limit (root is the
// filesystem holding /proc and /sys), else none.
func resolveMemoryLimit(s config.MemoryLimitSetting, root fs.FS, goMemLimit string) memoryLimit {
	switch {
	case s.Off:
		return memoryLimit{source: "runtime.memory-limit off"}
	case !s.Auto:
		return memoryLimit{bytes: int64(s.Bytes), source: "runtime.memory-limit"}
	}
	if goMemLimit != "" {
		return memoryLimit{keep: true, source: "auto: GOMEMLIMIT"}
	}
	if cg, ok := cgroupMemoryLimit(root); ok {
		return memoryLimit{bytes: cg / 100 * config.AutoMemoryLimitPercent,
			source: "auto: " + strconv.Itoa(config.AutoMemoryLimitPercent) + "% of the cgroup memory limit " + strconv.FormatInt(cg, 10)}
	}
	return memoryLimit{source: "auto: no cgroup memory limit"}
}

// applyMemoryLimit sets the runtime's soft memory limit from runtime.memory-limit and logs it.
func applyMemoryLimit(cfg config.Config, logger *slog.Logger) {
	s, err := config.ParseMemoryLimit(cfg.Runtime.MemoryLimit)
	if err != nil { // Validate refused it already
		s = config.MemoryLimitSetting{Auto: true}
	}
	l := resolveMemoryLimit(s, os.DirFS("/"), os.Getenv("GOMEMLIMIT"))
	switch {
	case l.keep:
	case l.bytes > 0:
		debug.SetMemoryLimit(l.bytes)
	default:
		debug.SetMemoryLimit(math.MaxInt64)
	}
	in := debug.SetMemoryLimit(-1)
	shown := "none"
	if in != math.MaxInt64 {
		shown = config.ByteSize(in).String()
	}
	logger.Info("memory limit", slog.String("limit", shown), slog.Int64("bytes", in), slog.String("source", l.source))
}

// cgroupMemoryLimit reads this process's cgroup memory limit (v2 memory.max, else v1
// memory.limit_in_bytes); ok is false when there is none (unlimited, or not in a cgroup).
func cgroupMemoryLimit(root fs.FS) (int64, bool) {
	b, err := fs.ReadFile(root, "proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	var candidates []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		rel := strings.TrimPrefix(path.Clean("/"+parts[2]), "/")
		switch {
		case parts[0] == "0" && parts[1] == "": // v2
			candidates = append(candidates, path.Join("sys/fs/cgroup", rel, "memory.max"), "sys/fs/cgroup/memory.max")
		case hasController(parts[1], "memory"): // v1
			candidates = append(candidates, path.Join("sys/fs/cgroup/memory", rel, "memory.limit_in_bytes"),
				"sys/fs/cgroup/memory/memory.limit_in_bytes")
		}
	}
	for _, c := range candidates {
		b, err := fs.ReadFile(root, c)
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(b))
		if v == "max" {
			return 0, false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n >= 1<<62 { // v1 writes a huge number for "unlimited"
			return 0, false
		}
		return n, true
	}
	return 0, false
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}
