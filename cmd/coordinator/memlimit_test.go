package main

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/redisstream/coordinator/config"
)

func TestCgroupMemoryLimit(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for name, tc := range map[string]struct {
		fs   fstest.MapFS
		want int64
		ok   bool
	}{
		"v2 nested": {fs: fstest.MapFS{"proc/self/cgroup": file("0::/kubepods/pod1/c1\n"),
			"sys/fs/cgroup/kubepods/pod1/c1/memory.max": file("1073741824\n")}, want: 1 << 30, ok: true},
		"v2 namespaced root": {fs: fstest.MapFS{"proc/self/cgroup": file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("536870912\n")}, want: 512 << 20, ok: true},
		"v2 unlimited": {fs: fstest.MapFS{"proc/self/cgroup": file("0::/\n"), "sys/fs/cgroup/memory.max": file("max\n")}},
		"v1": {fs: fstest.MapFS{"proc/self/cgroup": file("12:cpu,cpuacct:/x\n4:memory:/docker/abc\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("268435456\n")}, want: 256 << 20, ok: true},
		"v1 unlimited": {fs: fstest.MapFS{"proc/self/cgroup": file("4:memory:/\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("9223372036854771712\n")}},
		"no cgroup": {fs: fstest.MapFS{}},
	} {
		got, ok := cgroupMemoryLimit(tc.fs)
		assert.Equal(t, tc.ok, ok, name)
		assert.Equal(t, tc.want, got, name)
	}
}

func TestResolveMemoryLimit(t *testing.T) {
	cg := fstest.MapFS{"proc/self/cgroup": {Data: []byte("0::/\n")}, "sys/fs/cgroup/memory.max": {Data: []byte("1000000000\n")}}
	none := fstest.MapFS{}
	auto := config.MemoryLimitSetting{Auto: true}

	assert.Equal(t, int64(900000000), resolveMemoryLimit(auto, cg, "").bytes, "90% of the cgroup limit")
	assert.True(t, resolveMemoryLimit(auto, cg, "2GiB").keep, "an explicit GOMEMLIMIT stays in auto")
	assert.True(t, resolveMemoryLimit(auto, none, "2GiB").keep)
	l := resolveMemoryLimit(auto, none, "")
	assert.False(t, l.keep)
	assert.Zero(t, l.bytes, "no cgroup, no GOMEMLIMIT: none")
	assert.Equal(t, int64(config.GiB), resolveMemoryLimit(config.MemoryLimitSetting{Bytes: config.GiB}, cg, "2GiB").bytes)
	l = resolveMemoryLimit(config.MemoryLimitSetting{Off: true}, cg, "2GiB")
	assert.False(t, l.keep)
	assert.Zero(t, l.bytes, "off overrides both")
}
