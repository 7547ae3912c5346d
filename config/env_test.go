package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvNames(t *testing.T) {
	assert.Equal(t, "RSC_REDIS_ADDRS", EnvName("redis.addrs"))
	assert.Equal(t, "RSC_COORDINATION_MEMBER_LEASE_TTL", EnvName("coordination.member-lease-ttl"))
	assert.Equal(t, "RSC_HTTP_BODY_LIMIT", EnvName("http.body-limit"))
	assert.Equal(t, "RSC_AUTH_AUTHENTICATE_MEMBER_API", EnvName("auth.authenticate-member-api"))
	assert.Equal(t, "", EnvName("nope"))
	assert.Len(t, byEnv, len(settings), "env names are unique")
}

func TestEnvListsAndValues(t *testing.T) {
	cfg, err := Load(nil, []string{
		"RSC_REDIS_ADDRS=a:1, b:2 ,,c:3",
		"RSC_COORDINATION_MEMBER_LEASE_TTL=20s",
		"RSC_HTTP_BODY_LIMIT=2MiB",
		"RSC_CLUSTER_PROVIDER=automanaged",
		"RSC_CLUSTER_PORT=7000",
		"RSC_CLUSTER_MANAGE_PORT=7001",
		"RSC_CLUSTER_SEEDS=127.0.0.1:7001, x:1",
		"RSC_CLUSTER_INSECURE=true",
		"RSC_REDIS_TLS=true",
		"UNRELATED=1", // not ours
		"rsc_lowercase=1",
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"a:1", "b:2", "c:3"}, cfg.Redis.Addrs)
	assert.Equal(t, 20*time.Second, cfg.Coordination.MemberLeaseTTL)
	assert.Equal(t, 2*MiB, cfg.HTTP.BodyLimit)
	assert.Equal(t, []string{"127.0.0.1:7001", "x:1"}, cfg.Cluster.Seeds)
	assert.True(t, cfg.Redis.TLS)
}

func TestEnvUsers(t *testing.T) {
	env := []string{
		"RSC_AUTH_TOKEN_SECRET=" + secret16,
		`RSC_AUTH_USERS=[{username: admin, password: "0123", roles: [WRITE]}, {"username":"m","password":"x","roles":"MEMBER,READ"}]`,
		"RSC_AUTH_AUTHENTICATE_MEMBER_API=true",
	}
	cfg, err := Load(nil, env)
	require.NoError(t, err)
	require.Len(t, cfg.Auth.Users, 2)
	assert.Equal(t, User{Username: "admin", Password: "0123", Roles: []string{"WRITE"}}, cfg.Auth.Users[0])
	assert.Equal(t, []string{"MEMBER", "READ"}, cfg.Auth.Users[1].Roles)
	assert.True(t, cfg.Auth.AuthenticateMemberAPI)

	_, err = Load(nil, []string{`RSC_AUTH_USERS=[{username: a, pasword: x}]`})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `config: env RSC_AUTH_USERS: unknown key "auth.users[0].pasword" (did you mean password?)`)

	_, err = Load(nil, []string{`RSC_AUTH_USERS=[{username: a`})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "RSC_AUTH_USERS")
}

func TestUnknownEnvRejected(t *testing.T) {
	_, err := Load(nil, []string{"RSC_COORDINATION_MEMBER_LEASE_TL=20s"})
	require.Error(t, err)
	assert.Equal(t, "config: unknown environment variable RSC_COORDINATION_MEMBER_LEASE_TL (did you mean RSC_COORDINATION_MEMBER_LEASE_TTL?)", err.Error())

	// A value is never echoed: it may be a mistyped secret.
	_, err = Load(nil, []string{"RSC_AUTH_TOKEN_SECRT=hunter2hunter2hunter2"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "RSC_AUTH_TOKEN_SECRT")
	assert.NotContains(t, err.Error(), "hunter2")

	// Ambiguity of "_" is resolved by the key table, not by guessing.
	_, err = Load(nil, []string{"RSC_REDIS_DIAL_TIMEOUT=3s", "RSC_REDIS_DIAL=3s"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "RSC_REDIS_DIAL ")
}

func TestKubernetesServiceLinksIgnored(t *testing.T) {
	env := []string{
		"RSC_SERVICE_HOST=10.96.0.12",
		"RSC_SERVICE_PORT=8080",
		"RSC_SERVICE_PORT_HTTP=8080",
		"RSC_PORT=tcp://10.96.0.12:8080",
		"RSC_PORT_8080_TCP=tcp://10.96.0.12:8080",
		"RSC_PORT_8080_TCP_PROTO=tcp",
		"RSC_PORT_8080_TCP_PORT=8080",
		"RSC_PORT_8080_TCP_ADDR=10.96.0.12",
	}
	_, warnings, err := LoadWithWarnings(nil, env)
	require.NoError(t, err)
	assert.Empty(t, warnings, "Kubernetes service links are expected; no noise about them")
}

func TestUnknownEnvFailsWhenItLooksLikeOursAndWarnsOtherwise(t *testing.T) {
	// In one of our sections, or a near-miss of a known name: a typo, fail.
	for _, kv := range []string{"RSC_REDIS_ADDRESSES=a:1", "RSC_LOG_FMT=json", "RSC_CLUSTER_NODEID=n1", "RSC_CONFG=/etc/rsc.yaml", "RSC_HTTP_ADR=:80"} {
		_, err := Load(nil, []string{kv})
		require.Error(t, err, kv)
		assert.Contains(t, err.Error(), "config: unknown environment variable "+strings.Split(kv, "=")[0], kv)
	}
	// Anything else with our prefix may belong to another tool (the chaos
	// run's RSC_CHAOS_*): warn, go on.
	others := []string{"RSC_DASHBOARD_THEME=dark", "RSC_SDK_TOKEN=s3cret", "RSC_CHAOS_SEED=1", "RSC_TEST_ALLOW_NO_REDIS=1"}
	// streamctl's variables, and the RSC_* names it still reads for one
	// release, are neither an error nor a warning.
	streamctl := []string{"RSC_URL=http://x", "RSC_USER=u", "RSC_PASSWORD=pw", "RSC_TOKEN=t",
		"STREAMCTL_URL=http://x", "STREAMCTL_TOKEN=t", "STREAMCTL_CONFIG=/tmp/streamctl.yaml"}
	cfg, warnings, err := LoadWithWarnings(nil, append(append(others, streamctl...), "RSC_LOG_LEVEL=debug"))
	require.NoError(t, err)
	assert.Equal(t, "debug", cfg.Log.Level)
	require.Len(t, warnings, len(others))
	assert.Contains(t, strings.Join(warnings, "\n"), "RSC_DASHBOARD_THEME is not a coordinator setting and is ignored")
	assert.Contains(t, strings.Join(warnings, "\n"), "RSC_SDK_TOKEN")
	assert.NotContains(t, strings.Join(warnings, "\n"), "s3cret")
	assert.NotContains(t, strings.Join(warnings, "\n"), "RSC_URL")
	assert.NotContains(t, strings.Join(warnings, "\n"), "STREAMCTL")
}
