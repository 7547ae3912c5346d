package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// precedenceCase gives, for one key, three distinct valid values in text
// form: for the file, the environment and a flag.
type precedenceCase struct {
	key             string
	file, env, flag string
	fileExtra       map[string]string // other file keys the value needs to be valid
}

const memberUsers = `[{username: m, password: pw, roles: [MEMBER]}]`
const secret16 = "0123456789abcdef-secret"

// sentinelOn is the rest of a valid Sentinel setting, for its credentials' cases.
var sentinelOn = map[string]string{"redis.sentinel.master-name": "m", "redis.sentinel.addrs": "s:26379"}

var precedenceCases = []precedenceCase{
	{key: "http.addr", file: "127.0.0.1:8081", env: "127.0.0.1:8082", flag: "127.0.0.1:8083"},
	{key: "http.body-limit", file: "2MiB", env: "3145728", flag: "4096KiB"},
	{key: "http.allowed-origins", file: "https://a.example,http://b:1", env: "https://c.example", flag: "https://d.example:8443"},
	{key: "redis.addrs", file: "a:1,b:2", env: "c:3,d:4", flag: "e:5"},
	{key: "redis.username", file: "u-file", env: "u-env", flag: "u-flag"},
	{key: "redis.password", file: "p-file", env: "p-env"},
	{key: "redis.db", file: "1", env: "2", flag: "3"},
	{key: "redis.tls", file: "true", env: "false", flag: "true"},
	{key: "redis.tls-ca-file", file: "/a/ca.crt", env: "/b/ca.crt", flag: "/c/ca.crt", fileExtra: map[string]string{"redis.tls": "true"}},
	{key: "redis.tls-cert-file", file: "/a/c.crt", env: "/b/c.crt", flag: "/c/c.crt", fileExtra: map[string]string{"redis.tls": "true", "redis.tls-key-file": "/k"}},
	{key: "redis.tls-key-file", file: "/a/c.key", env: "/b/c.key", flag: "/c/c.key", fileExtra: map[string]string{"redis.tls": "true", "redis.tls-cert-file": "/c"}},
	{key: "redis.tls-server-name", file: "r1.example", env: "r2.example", flag: "r3.example", fileExtra: map[string]string{"redis.tls": "true"}},
	{key: "redis.tls-min-version", file: "1.3", env: "1.2", flag: "1.3"},
	{key: "redis.dial-timeout", file: "3s", env: "4s", flag: "5s"},
	{key: "redis.read-timeout", file: "3s", env: "4s", flag: "5s"},
	{key: "redis.write-timeout", file: "3s", env: "4s", flag: "5s"},
	{key: "redis.sentinel.master-name", file: "m1", env: "m2", flag: "m3", fileExtra: map[string]string{"redis.sentinel.addrs": "s:26379"}},
	{key: "redis.sentinel.addrs", file: "a:1,b:2", env: "c:3,d:4", flag: "e:5", fileExtra: map[string]string{"redis.sentinel.master-name": "m"}},
	{key: "redis.sentinel.username", file: "u-file", env: "u-env", flag: "u-flag", fileExtra: sentinelOn},
	{key: "redis.sentinel.password", file: "p-file", env: "p-env", fileExtra: sentinelOn},
	{key: "store.key-prefix", file: "f", env: "e", flag: "g"},
	{key: "store.trust-empty-store", file: "true", env: "false", flag: "true"},
	{key: "store.wait-replicas", file: "1", env: "2", flag: "3"},
	{key: "store.wait-timeout", file: "100ms", env: "150ms", flag: "250ms"},
	{key: "auth.token-secret", file: secret16 + "f", env: secret16 + "e"},
	{key: "auth.previous-token-secrets", file: secret16 + "f", env: secret16 + "e"},
	{key: "auth.token-ttl", file: "2h", env: "3h", flag: "4h"},
	{key: "auth.token-revocation-window", file: "20s", env: "30s", flag: "40s"},
	{key: "auth.authenticate-member-api", file: "false", env: "true", flag: "false",
		fileExtra: map[string]string{"auth.users": memberUsers, "auth.token-secret": secret16}},
	{key: "auth.users", file: `[{username: a, password: pa, roles: [READ]}]`,
		env:       `[{"username": "b", "password": "pb", "roles": ["WRITE", "READ"]}]`,
		fileExtra: map[string]string{"auth.token-secret": secret16, "auth.authenticate-member-api": "false"}},
	{key: "auth.allow-unauthenticated", file: "true", env: "false", flag: "true"},
	{key: "auth.admin-rate-limit", file: "1.5", env: "2.5", flag: "3.5"},
	{key: "auth.admin-rate-burst", file: "21", env: "22", flag: "23"},
	{key: "auth.failed-auth-per-address-rate", file: "0.5", env: "1.5", flag: "2.5"},
	{key: "auth.failed-auth-per-address-burst", file: "31", env: "32", flag: "33"},
	{key: "auth.failed-auth-per-user-rate", file: "0.25", env: "0.5", flag: "0.75"},
	{key: "auth.failed-auth-per-user-burst", file: "11", env: "12", flag: "13"},
	{key: "coordination.heartbeat-interval", file: "1s", env: "2s", flag: "4s"},
	{key: "coordination.member-lease-ttl", file: "20s", env: "30s", flag: "40s"},
	{key: "coordination.rebalance-timeout", file: "61s", env: "62s", flag: "1m3s"},
	{key: "coordination.member-retention", file: "2h", env: "3h", flag: "4h"},
	{key: "coordination.static-session-timeout", file: "40s", env: "50s", flag: "1m"},
	{key: "groups.idle-passivation", file: "1m", env: "0s", flag: "5m"},
	{key: "groups.sweep-interval", file: "10s", env: "20s", flag: "40s"},
	{key: "defaults.initial-shard-count", file: "8", env: "16", flag: "32"},
	{key: "resharding.max-shard-count", file: "100", env: "200", flag: "300"},
	{key: "resharding.routing-grace", file: "31s", env: "32s", flag: "33s"},
	{key: "resharding.poll-interval", file: "2s", env: "3s", flag: "4s"},
	{key: "resharding.retired-retention", file: "1h", env: "2h", flag: "3h"},
	{key: "resharding.history", file: "5", env: "6", flag: "7"},
	{key: "resharding.driver-lease", file: "11s", env: "12s", flag: "13s"},
	{key: "groups.creation", file: "explicit", env: "implicit", flag: "explicit"},
	{key: "limits.groups-per-stream", file: "10", env: "20", flag: "30"},
	{key: "limits.members-per-group", file: "10", env: "20", flag: "30"},
	{key: "limits.joins-per-second", file: "1.5", env: "2.5", flag: "3.5"},
	{key: "limits.join-burst", file: "10", env: "20", flag: "30"},
	{key: "assignment.max-moves-per-round", file: "16", env: "32", flag: "64"},
	{key: "assignment.max-moves-fraction", file: "0.05", env: "0.1", flag: "0.25"},
	{key: "limits.retained-members-per-group", file: "10", env: "20", flag: "30"},
	{key: "limits.browse-max-count", file: "10", env: "20", flag: "30"},
	{key: "cluster.name", file: "a", env: "b", flag: "c"},
	{key: "metrics.addr", file: "127.0.0.1:9101", env: "127.0.0.1:9102", flag: "127.0.0.1:9103"},
	{key: "metrics.sample-interval", file: "5s", env: "10s", flag: "20s"},
	{key: "shutdown.timeout", file: "20s", env: "40s", flag: "50s"},
	{key: "runtime.memory-limit", file: "1GiB", env: "off", flag: "512MiB"},
	{key: "shutdown.drain-delay", file: "1s", env: "2s", flag: "3s"},
	{key: "audit.redis-stream", file: "a:f", env: "a:e", flag: "a:g"},
	{key: "audit.redis-maxlen", file: "10", env: "20", flag: "30"},
	{key: "audit.refusal-window", file: "10s", env: "20s", flag: "30s"},
	{key: "audit.refusal-addresses", file: "10", env: "20", flag: "30"},
	{key: "mailbox.enabled", file: "true", env: "false", flag: "true"},
	{key: "mailbox.principals", file: "a", env: "b,c", flag: "d"},
	{key: "mailbox.max-requests", file: "10", env: "20", flag: "30"},
	{key: "mailbox.reply-ttl", file: "10s", env: "20s", flag: "30s"},
	{key: "mailbox.block", file: "100ms", env: "200ms", flag: "300ms"},
	{key: "mailbox.batch", file: "10", env: "20", flag: "30"},
	// Only single and test run with the other cluster keys at their defaults; the other
	// providers are loaded through every layer by TestClusterProvidersLoad.
	{key: "cluster.provider", file: "test", env: "single", flag: "test"},
	{key: "cluster.host", file: "10.0.0.1", env: "10.0.0.2", flag: "10.0.0.3",
		fileExtra: map[string]string{"cluster.provider": "test"}},
	{key: "cluster.advertise-host", file: "a1.example", env: "10.1.0.2", flag: "a3.example",
		fileExtra: map[string]string{"cluster.provider": "test", "cluster.port": "7000"}},
	{key: "cluster.port", file: "7001", env: "7002", flag: "7003",
		fileExtra: map[string]string{"cluster.provider": "test"}},
	{key: "cluster.manage-port", file: "7101", env: "7102", flag: "7103",
		fileExtra: map[string]string{"cluster.provider": "automanaged", "cluster.port": "7000",
			"cluster.seeds": "[127.0.0.1:7101, 127.0.0.1:7102, 127.0.0.1:7103]", "cluster.insecure": "true"}},
	{key: "cluster.seeds", file: "127.0.0.1:7100,s1:1", env: "127.0.0.1:7100,s2:2,s3:3", flag: "127.0.0.1:7100,s4:4",
		fileExtra: map[string]string{"cluster.provider": "automanaged", "cluster.port": "7000", "cluster.manage-port": "7100", "cluster.insecure": "true"}},
	{key: "cluster.node-id", file: "n1", env: "n2", flag: "n3"},
	{key: "http.tls.cert-file", file: "/a/tls.crt", env: "/b/tls.crt", flag: "/c/tls.crt",
		fileExtra: map[string]string{"http.tls.key-file": "/t.key"}},
	{key: "http.tls.key-file", file: "/a/tls.key", env: "/b/tls.key", flag: "/c/tls.key",
		fileExtra: map[string]string{"http.tls.cert-file": "/t.crt"}},
	{key: "http.tls.client-ca-file", file: "/a/ca.crt", env: "/b/ca.crt", flag: "/c/ca.crt",
		fileExtra: map[string]string{"http.tls.cert-file": "/t.crt", "http.tls.key-file": "/t.key"}},
	{key: "http.tls.reload-interval", file: "5s", env: "20s", flag: "1m0s"},
	{key: "cluster.tls.ca-file", file: "/a/ca.crt", env: "/b/ca.crt", flag: "/c/ca.crt",
		fileExtra: map[string]string{"cluster.provider": "test", "cluster.tls.cert-file": "/t.crt", "cluster.tls.key-file": "/t.key"}},
	{key: "cluster.tls.cert-file", file: "/a/tls.crt", env: "/b/tls.crt", flag: "/c/tls.crt",
		fileExtra: map[string]string{"cluster.provider": "test", "cluster.tls.ca-file": "/ca.crt", "cluster.tls.key-file": "/t.key"}},
	{key: "cluster.tls.key-file", file: "/a/tls.key", env: "/b/tls.key", flag: "/c/tls.key",
		fileExtra: map[string]string{"cluster.provider": "test", "cluster.tls.ca-file": "/ca.crt", "cluster.tls.cert-file": "/t.crt"}},
	{key: "cluster.tls.reload-interval", file: "5s", env: "20s", flag: "1m0s"},
	{key: "cluster.insecure", file: "true", env: "false", flag: "true",
		fileExtra: map[string]string{"cluster.provider": "test"}},
	{key: "log.level", file: "debug", env: "warn", flag: "error"},
	{key: "log.format", file: "json", env: "text", flag: "json"},
	{key: "failpoint.reshard-hold", file: "ACTIVE", env: "DRAINING", flag: "PREPARING"},
}

func TestPrecedenceCoversEveryKey(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range precedenceCases {
		covered[c.key] = true
	}
	for _, k := range Keys() {
		assert.True(t, covered[k], "no precedence case for %s", k)
		s := byKey[k]
		for _, c := range precedenceCases {
			if c.key == k {
				assert.Equal(t, s.Secret, c.flag == "", "%s: flag presence must match (secrets have no flag)", k)
			}
		}
	}
}

func TestPrecedencePerKey(t *testing.T) {
	for _, c := range precedenceCases {
		t.Run(c.key, func(t *testing.T) {
			s := byKey[c.key]
			fileText := c.file
			if s.Type.Kind() == reflect.Slice && s.Type != usersType {
				fileText = "[" + c.file + "]" // a real YAML list
			}
			flat := map[string]string{c.key: fileText}
			for k, v := range c.fileExtra {
				flat[k] = v
			}
			path := writeFile(t, yamlOf(flat))
			env := []string{s.Env + "=" + c.env}
			args := []string{"--config", path}

			// defaults only
			cfg, err := Load(nil, nil)
			require.NoError(t, err)
			def := valueOf(t, Default(), c.key)
			assert.Equal(t, def, valueOf(t, cfg, c.key), "default")

			// file beats default
			cfg, err = Load(args, nil)
			require.NoError(t, err)
			assert.Equal(t, normalize(t, c.key, c.file), valueOf(t, cfg, c.key), "file")
			assert.NotEqual(t, def, valueOf(t, cfg, c.key), "file value must differ from default for the test to mean anything")

			// env beats file
			cfg, err = Load(args, env)
			require.NoError(t, err)
			assert.Equal(t, normalize(t, c.key, c.env), valueOf(t, cfg, c.key), "env")
			assert.NotEqual(t, normalize(t, c.key, c.file), valueOf(t, cfg, c.key))

			if c.flag == "" {
				return
			}
			// flag beats env (flag given before --config: order of flags is irrelevant)
			cfg, err = Load(append([]string{"--" + c.key + "=" + c.flag}, args...), env)
			require.NoError(t, err)
			assert.Equal(t, normalize(t, c.key, c.flag), valueOf(t, cfg, c.key), "flag")
			assert.NotEqual(t, normalize(t, c.key, c.env), valueOf(t, cfg, c.key))
		})
	}
}

func TestLayersMergeKeyByKey(t *testing.T) {
	// Each layer overrides only the keys it sets; siblings keep lower layers.
	path := writeFile(t, "redis:\n  db: 5\n  username: u\ncoordination:\n  heartbeat-interval: 2s\n")
	cfg, err := Load([]string{"--config", path, "--redis.db=7"}, []string{"RSC_COORDINATION_MEMBER_LEASE_TTL=20s"})
	require.NoError(t, err)
	assert.Equal(t, 7, cfg.Redis.DB)
	assert.Equal(t, "u", cfg.Redis.Username)
	assert.Equal(t, []string{"127.0.0.1:6379"}, cfg.Redis.Addrs)
	assert.Equal(t, 2*time.Second, cfg.Coordination.HeartbeatInterval)
	assert.Equal(t, 20*time.Second, cfg.Coordination.MemberLeaseTTL)
	assert.Equal(t, 60*time.Second, cfg.Coordination.RebalanceTimeout)
}
