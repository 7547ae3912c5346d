package config

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/config/source"
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

var precedenceCases = []precedenceCase{
	{key: "http.addr", file: "127.0.0.1:8081", env: "127.0.0.1:8082", flag: "127.0.0.1:8083"},
	{key: "http.body-limit", file: "2MiB", env: "3145728", flag: "4096KiB"},
	{key: "http.allowed-origins", file: "https://a.example,http://b:1", env: "https://c.example", flag: "https://d.example:8443"},
	{key: "redis.addrs", file: "a:1,b:2", env: "c:3,d:4", flag: "e:5"},
	{key: "redis.username", file: "u-file", env: "u-env", flag: "u-flag"},
	{key: "redis.password", file: "p-file", env: "p-env"},
	{key: "redis.db", file: "1", env: "2", flag: "3"},
	{key: "redis.tls", file: "true", env: "false", flag: "true"},
	{key: "redis.dial-timeout", file: "3s", env: "4s", flag: "5s"},
	{key: "redis.read-timeout", file: "3s", env: "4s", flag: "5s"},
	{key: "redis.write-timeout", file: "3s", env: "4s", flag: "5s"},
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
			"cluster.seeds": "[127.0.0.1:7101, 127.0.0.1:7102, 127.0.0.1:7103]"}},
	{key: "cluster.seeds", file: "127.0.0.1:7100,s1:1", env: "127.0.0.1:7100,s2:2,s3:3", flag: "127.0.0.1:7100,s4:4",
		fileExtra: map[string]string{"cluster.provider": "automanaged", "cluster.port": "7000", "cluster.manage-port": "7100"}},
	{key: "cluster.node-id", file: "n1", env: "n2", flag: "n3"},
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

func TestDefaultsLoadAndValidate(t *testing.T) {
	cfg, err := Load(nil, nil)
	require.NoError(t, err)
	assert.Equal(t, Default(), cfg)
	assert.NoError(t, Default().Validate())
	assert.Equal(t, testHost, cfg.Cluster.NodeID)
	assert.Equal(t, time.Second, cfg.Redis.ReadTimeout)
	assert.Equal(t, 2*time.Second, cfg.Redis.DialTimeout)
	assert.Equal(t, MiB, cfg.HTTP.BodyLimit)
	assert.Equal(t, 4, cfg.Defaults.InitialShardCount)
	assert.Equal(t, "single", cfg.Cluster.Provider)
	assert.Equal(t, 10.0, cfg.Auth.AdminRateLimit)
	assert.Equal(t, 20, cfg.Auth.AdminRateBurst)
	assert.Equal(t, time.Hour, cfg.Coordination.MemberRetention)
	assert.Equal(t, 7*24*time.Hour, cfg.Auth.TokenTTL)
}

func TestExampleYAMLLoadsAndShowsTheDefaults(t *testing.T) {
	cfg, err := Load([]string{"--config", "example.yaml"}, nil)
	require.NoError(t, err)
	assert.Equal(t, Default(), cfg, "example.yaml documents the defaults; keep them in sync")

	// every key is written out in the example
	b, err := os.ReadFile("example.yaml")
	require.NoError(t, err)
	lines, err := source.KeyLines(b)
	require.NoError(t, err)
	for _, k := range Keys() {
		assert.Contains(t, lines, k, "example.yaml does not show %s", k)
	}
}

func TestExampleYAMLWithUsersUncommented(t *testing.T) {
	// The commented users block of the example, as an operator would enable it.
	b, err := os.ReadFile("example.yaml")
	require.NoError(t, err)
	s := strings.Replace(string(b), `token-secret: ""`, `token-secret: "`+secret16+`"`, 1)
	s = strings.Replace(s, "  users: []\n", `  users:
    - username: admin
      password: "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"
      roles: [READ, WRITE]
    - username: grafana
      password: change-me
      roles: [READ]
    - username: orders-workers
      password: change-me-too
      roles: [MEMBER]
      streams: ["orders", "orders:*"]
`, 1)
	cfg, err := Load([]string{"--config", writeFile(t, s)}, nil)
	require.NoError(t, err)
	require.Len(t, cfg.Auth.Users, 3)
	assert.Equal(t, []string{"orders", "orders:*"}, cfg.Auth.Users[2].Streams)
	assert.Equal(t, []string{"READ", "WRITE"}, cfg.Auth.Users[0].Roles)
	assert.Equal(t, "change-me", cfg.Auth.Users[1].Password)
}

func TestDocsCoverEveryKey(t *testing.T) {
	b, err := os.ReadFile("../docs/OPERATIONS.md")
	require.NoError(t, err)
	doc := string(b)
	for _, s := range settings {
		assert.Contains(t, doc, "`"+s.Key+"`", "docs/OPERATIONS.md lacks key %s", s.Key)
		assert.Contains(t, doc, "`"+s.Env+"`", "docs/OPERATIONS.md lacks env %s", s.Env)
	}
}

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

func TestEmptyRedisAddrsMeansEmbedded(t *testing.T) {
	cfg, err := Load(nil, []string{"RSC_REDIS_ADDRS="})
	require.NoError(t, err)
	assert.True(t, cfg.Embedded())
	assert.Empty(t, cfg.Redis.Addrs)

	cfg, err = Load([]string{"--redis.addrs="}, nil)
	require.NoError(t, err)
	assert.True(t, cfg.Embedded())

	cfg, err = Load([]string{"--config", writeFile(t, "redis:\n  addrs: []\n")}, nil)
	require.NoError(t, err)
	assert.True(t, cfg.Embedded())

	assert.False(t, Default().Embedded())
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

func TestYAMLScalarsKeepTheirText(t *testing.T) {
	path := writeFile(t, `
auth:
  token-secret: 0123456789012345678
  authenticate-member-api: false
  users:
    - {username: 007, password: 0123, roles: [READ]}
redis:
  password: 1e3
  username: true
`)
	cfg, err := Load([]string{"--config", path}, nil)
	require.NoError(t, err)
	assert.Equal(t, "0123", cfg.Auth.Users[0].Password, "no octal/float reinterpretation")
	assert.Equal(t, "007", cfg.Auth.Users[0].Username)
	assert.Equal(t, "1e3", cfg.Redis.Password)
	assert.Equal(t, "true", cfg.Redis.Username)
	assert.Equal(t, "0123456789012345678", cfg.Auth.TokenSecret)
}

func TestYAMLAnchorsAndEmptySections(t *testing.T) {
	path := writeFile(t, `
cluster:
  provider: automanaged
  host: n1
  port: 7000
  manage-port: 1
  seeds: &nodes ["n1:1", "n2:2"]
redis:
  addrs: *nodes
log:
store: {}
`)
	cfg, err := Load([]string{"--config", path}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"n1:1", "n2:2"}, cfg.Redis.Addrs)
	assert.Equal(t, "info", cfg.Log.Level)

	cfg, err = Load([]string{"--config", writeFile(t, "# nothing but a comment\n")}, nil)
	require.NoError(t, err)
	assert.Equal(t, Default(), cfg)
}

func TestUnknownYAMLKeysRejected(t *testing.T) {
	cases := []struct{ body, want string }{
		{"coordination:\n  member-lease-tl: 20s\n", `line 2: unknown key "coordination.member-lease-tl" (did you mean coordination.member-lease-ttl?)`},
		{"htp:\n  addr: x\n", `line 1: unknown key "htp" (did you mean http?)`},
		{"http:\n  addr: x\n  port: 1\n", `line 3: unknown key "http.port"`},
		{"auth:\n  users:\n    - username: a\n      passwd: x\n", `line 4: unknown key "auth.users[0].passwd" (did you mean password?)`},
		{"redis: localhost\n", `config: redis = "localhost" (from file PATH line 1): is a section and must be a mapping`},
		{"http:\n  addr: a:1\n  addr: b:2\n", `line 3: mapping key "addr" already defined at line 2`},
		{"- a\n- b\n", `line 1: the top level must be a mapping`},
		{"http: [\n", `yaml:`},
	}
	for _, c := range cases {
		path := writeFile(t, c.body)
		_, err := Load([]string{"--config", path}, nil)
		require.Error(t, err, c.body)
		assert.Contains(t, err.Error(), "file "+path, c.body)
		assert.Contains(t, err.Error(), strings.ReplaceAll(c.want, "PATH", path), c.body)
	}
}

func TestAllFileProblemsReportedAtOnce(t *testing.T) {
	path := writeFile(t, "http:\n  adr: x\nlog:\n  levle: debug\n")
	_, err := Load([]string{"--config", path}, []string{"RSC_LOG_LEVLE=debug"})
	require.Error(t, err)
	for _, want := range []string{`"http.adr"`, `"log.levle"`, "RSC_LOG_LEVLE"} {
		assert.Contains(t, err.Error(), want)
	}
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

func TestDecodeErrorsNameKeyValueAndSource(t *testing.T) {
	path := writeFile(t, "coordination:\n  heartbeat-interval: 3\nhttp:\n  body-limit: lots\n  addr: [a, b]\n")
	_, err := Load([]string{"--config", path}, []string{"RSC_REDIS_DB=abc", "RSC_REDIS_TLS=yes", "RSC_AUTH_ADMIN_RATE_LIMIT=NaN"})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		`config: coordination.heartbeat-interval = "3" (from file ` + path + ` line 2): must be a duration with a unit`,
		`config: http.body-limit = "lots" (from file ` + path + ` line 4): must be a byte size`,
		`config: http.addr = [a b] (from file ` + path + ` line 5): must be a single string value`,
		`config: redis.db = "abc" (from env RSC_REDIS_DB): must be an integer`,
		`config: redis.tls = "yes" (from env RSC_REDIS_TLS): must be true or false`,
	} {
		assert.Contains(t, msg, want)
	}

	_, err = Load([]string{"--cluster.port=x"}, nil)
	require.Error(t, err)
	assert.Equal(t, `config: invalid argument "x" for "--cluster.port" flag: must be an integer`, err.Error())

	// Not a decode error but still refused: Validate wants a finite rate.
	_, err = Load(nil, []string{"RSC_AUTH_ADMIN_RATE_LIMIT=NaN"})
	require.EqualError(t, err, `config: auth.admin-rate-limit = NaN: must be a number`)
}

func TestFlags(t *testing.T) {
	cfg, err := Load([]string{
		"--http.addr", ":9000", "--auth.allow-unauthenticated",
		"--redis.addrs", "a:1,b:2", "--redis.addrs", "c:3",
		"--cluster.provider=test", "--cluster.port=7000",
		"--cluster.node-id=node-7",
		"--log.level", "debug",
		"--redis.tls",
	}, nil)
	require.NoError(t, err)
	assert.Equal(t, ":9000", cfg.HTTP.Addr)
	assert.Equal(t, []string{"a:1", "b:2", "c:3"}, cfg.Redis.Addrs)
	assert.Equal(t, 7000, cfg.Cluster.Port)
	assert.Equal(t, "node-7", cfg.Cluster.NodeID)
	assert.Equal(t, "debug", cfg.Log.Level)
	assert.True(t, cfg.Redis.TLS)

	_, err = Load([]string{"--http.adr=x"}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unknown flag: --http.adr")

	_, err = Load([]string{"serve"}, nil)
	require.EqualError(t, err, `config: unexpected argument "serve" (settings are given as --key=value)`)

	// secrets have no flag
	_, err = Load([]string{"--auth.token-secret=" + secret16}, nil)
	require.Error(t, err)
	_, err = Load([]string{"--redis.password=x"}, nil)
	require.Error(t, err)
}

func TestHelp(t *testing.T) {
	_, err := Load([]string{"--help"}, nil)
	assert.True(t, errors.Is(err, ErrHelp))
	u := Usage()
	for _, want := range []string{"--config", "--http.addr", "--redis.addrs", "--cluster.port", "--cluster.node-id", "--log.level", "RSC_COORDINATION_MEMBER_LEASE_TTL", "duration", "(default 15s)"} {
		assert.Contains(t, u, want)
	}
	// Secrets are listed, but as settings without a flag.
	for _, secret := range []string{"auth.token-secret", "redis.password", "auth.users"} {
		assert.NotContains(t, u, "--"+secret)
		assert.Contains(t, u, secret+" ")
	}
	assert.Contains(t, u, "RSC_AUTH_TOKEN_SECRET")
}

func TestConfigFileFromEnvAndFlag(t *testing.T) {
	a := writeFile(t, "log:\n  level: debug\n")
	b := writeFile(t, "log:\n  level: warn\n")
	cfg, err := Load(nil, []string{"RSC_CONFIG=" + a})
	require.NoError(t, err)
	assert.Equal(t, "debug", cfg.Log.Level)

	cfg, err = Load([]string{"--config=" + b}, []string{"RSC_CONFIG=" + a})
	require.NoError(t, err)
	assert.Equal(t, "warn", cfg.Log.Level)

	_, err = Load([]string{"--config=/does/not/exist.yaml"}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "config: reading config file")
	assert.Contains(t, err.Error(), "/does/not/exist.yaml")
}

func TestNodeIDDerivedFromHostname(t *testing.T) {
	old := hostname
	t.Cleanup(func() { hostname = old })
	hostname = func() (string, error) { return "pod:coordinator-0 ", nil }
	cfg, err := Load(nil, []string{"RSC_CLUSTER_NODE_ID="})
	require.NoError(t, err)
	assert.Equal(t, "podcoordinator-0", cfg.Cluster.NodeID)
}

func TestValidationErrorsComeFromLoad(t *testing.T) {
	_, err := Load(nil, []string{"RSC_COORDINATION_MEMBER_LEASE_TTL=2s"})
	require.EqualError(t, err, "config: coordination.member-lease-ttl = 2s: must be greater than coordination.heartbeat-interval (3s)")
}

// Decode errors are said from the key's type, never from the decoder's
// text; an unknown key is reported beside a wrong value in its section.
func TestDecodeErrorsInsideSectionsAndUsers(t *testing.T) {
	path := writeFile(t, "http:\n  body-limit: lots\n  adrr: x\nauth:\n  users:\n    - nope\n    - {username: a, password: p, roles: {x: 1}}\n")
	_, err := Load([]string{"--config", path}, nil)
	require.Error(t, err)
	for _, want := range []string{
		`config: http.body-limit = "lots" (from file ` + path + ` line 2): must be a byte size`,
		`config: file ` + path + ` line 3: unknown key "http.adrr" (did you mean http.addr?)`,
		`config: auth.users[0] = (redacted) (from file ` + path + ` line 5): must be a mapping {username, password, roles, streams, groups}`,
		`config: auth.users[1].roles[0] = (redacted) (from file ` + path + ` line 7): must be a single string value`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "unconvertible", "no decoder text")
}
