package config

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/config/source"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
  insecure: true
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
