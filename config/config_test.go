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
