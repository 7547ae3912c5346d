package config

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedacted(t *testing.T) {
	cfg := Default()
	cfg.Redis.Password = "redis-pw"
	cfg.Auth.TokenSecret = secret16
	cfg.Auth.PreviousTokenSecrets = []string{"old-secret-0123456789"}
	cfg.Auth.Users = []User{{Username: "a", Password: "pw", Roles: []string{"READ"}}, {Username: "b", Roles: []string{"WRITE"}}}

	r := cfg.Redacted()
	assert.Equal(t, []string{"***"}, r.Auth.PreviousTokenSecrets)
	assert.Equal(t, "old-secret-0123456789", cfg.Auth.PreviousTokenSecrets[0])
	assert.Equal(t, "***", r.Redis.Password)
	assert.Equal(t, "***", r.Auth.TokenSecret)
	assert.Equal(t, "***", r.Auth.Users[0].Password)
	assert.Equal(t, "", r.Auth.Users[1].Password, "an unset secret stays visibly unset")
	assert.Equal(t, "a", r.Auth.Users[0].Username)
	s := fmt.Sprintf("%+v", r)
	for _, secret := range []string{"redis-pw", secret16, "pw}", "old-secret"} {
		assert.NotContains(t, s, secret)
	}

	// deep copy: the original is untouched and shares no slices
	assert.Equal(t, "pw", cfg.Auth.Users[0].Password)
	r.Auth.Users[0].Roles[0] = "X"
	r.Redis.Addrs[0] = "X"
	assert.Equal(t, "READ", cfg.Auth.Users[0].Roles[0])
	assert.Equal(t, "127.0.0.1:6379", cfg.Redis.Addrs[0])

	empty := Default().Redacted()
	assert.Equal(t, "", empty.Redis.Password)
	assert.Equal(t, "", empty.Auth.TokenSecret)
}

func TestEmbedded(t *testing.T) {
	cfg := Default()
	assert.False(t, cfg.Embedded())
	cfg.Redis.Addrs = nil
	assert.True(t, cfg.Embedded())
	cfg.Redis.Addrs = []string{}
	assert.True(t, cfg.Embedded())
}

func TestByteSize(t *testing.T) {
	good := map[string]ByteSize{
		"1MiB": MiB, "1mib": MiB, "1 MiB": MiB, "1Mi": MiB, "512KiB": 512 * KiB, "1GiB": GiB,
		"1048576": MiB, "0": 0, "100B": 100, "1KB": 1000, "1MB": 1_000_000, "1.5MiB": 3 * MiB / 2,
		" 2KiB ": 2 * KiB,
	}
	for in, want := range good {
		got, err := ParseByteSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "MiB", "1XB", "-1", "1.5", "1e3", "lots", "1MiBs", "99999999999GiB"} {
		_, err := ParseByteSize(in)
		assert.Error(t, err, in)
	}
	assert.Equal(t, "1MiB", MiB.String())
	assert.Equal(t, "1536KiB", (3 * MiB / 2).String())
	assert.Equal(t, "1000B", ByteSize(1000).String())
	assert.Equal(t, "0B", ByteSize(0).String())
	assert.Equal(t, "2GiB", (2 * GiB).String())

	var b ByteSize
	require.NoError(t, b.UnmarshalText([]byte("64KiB")))
	assert.Equal(t, 64*KiB, b)
	txt, _ := b.MarshalText()
	assert.Equal(t, "64KiB", string(txt))
}

func TestDurationAndNumberSyntax(t *testing.T) {
	path := writeFile(t, `
coordination:
  heartbeat-interval: 500ms
  member-lease-ttl: 1m30s
  rebalance-timeout: 2m
http:
  body-limit: 2097152
auth:
  admin-rate-limit: 0.5
`)
	cfg, err := Load([]string{"--config", path}, nil)
	require.NoError(t, err)
	assert.Equal(t, "500ms", cfg.Coordination.HeartbeatInterval.String())
	assert.Equal(t, "1m30s", cfg.Coordination.MemberLeaseTTL.String())
	assert.Equal(t, "2m0s", cfg.Coordination.RebalanceTimeout.String())
	assert.Equal(t, 2*MiB, cfg.HTTP.BodyLimit)
	assert.Equal(t, 0.5, cfg.Auth.AdminRateLimit)
}
