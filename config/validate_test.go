package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func withUsers(c *Config, users ...User) {
	c.Auth.TokenSecret = secret16
	c.Auth.Users = users
}

func TestValidateNamesFieldAndValue(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"sentinel without master name", func(c *Config) { c.Redis.Sentinel.Addrs = []string{"s1:26379"} },
			`config: redis.sentinel.master-name = "": is required with redis.sentinel.addrs: the name of the primary the Sentinels monitor (sentinel monitor NAME ...)`},
		{"sentinel without addrs", func(c *Config) { c.Redis.Sentinel.MasterName = "mymaster" },
			`config: redis.sentinel.addrs = "": is required with redis.sentinel.master-name: the Sentinels' host:port, comma separated`},
		{"sentinel and addrs", func(c *Config) {
			c.Redis.Sentinel = RedisSentinel{MasterName: "mymaster", Addrs: []string{"s1:26379"}}
			c.Redis.Addrs = []string{"r1:6379"}
		}, `config: redis.addrs = ["r1:6379"]: is set together with redis.sentinel: with Sentinel the coordinator asks the Sentinels where the primary is; remove redis.addrs`},
		{"sentinel password alone", func(c *Config) { c.Redis.Sentinel.Password = "pw" },
			`config: redis.sentinel.username = "": or redis.sentinel.password is set but redis.sentinel.master-name is not: name the primary and list redis.sentinel.addrs, or remove them`},
		{"sentinel bad addr", func(c *Config) {
			c.Redis.Sentinel = RedisSentinel{MasterName: "mymaster", Addrs: []string{"s1"}}
		}, `config: redis.sentinel.addrs[0] = "s1"`},
		{"heartbeat zero", func(c *Config) { c.Coordination.HeartbeatInterval = 0 },
			"config: coordination.heartbeat-interval = 0s: must be greater than 0"},
		{"lease not above heartbeat", func(c *Config) { c.Coordination.MemberLeaseTTL = 2 * time.Second },
			"config: coordination.member-lease-ttl = 2s: must be greater than coordination.heartbeat-interval (3s)"},
		{"lease equal heartbeat", func(c *Config) { c.Coordination.MemberLeaseTTL = 3 * time.Second },
			"config: coordination.member-lease-ttl = 3s: must be greater than coordination.heartbeat-interval (3s)"},
		{"rebalance zero", func(c *Config) { c.Coordination.RebalanceTimeout = 0 },
			"config: coordination.rebalance-timeout = 0s: must be greater than 0"},
		{"retention negative", func(c *Config) { c.Coordination.MemberRetention = -time.Second },
			"config: coordination.member-retention = -1s: must be greater than 0"},
		{"body limit small", func(c *Config) { c.HTTP.BodyLimit = 512 },
			"config: http.body-limit = 512B: must be between 1KiB and 64MiB"},
		{"body limit large", func(c *Config) { c.HTTP.BodyLimit = 65 * MiB },
			"config: http.body-limit = 65MiB: must be between 1KiB and 64MiB"},
		{"memory limit word", func(c *Config) { c.Runtime.MemoryLimit = "lots" },
			`config: runtime.memory-limit = "lots": must be auto, off or a size such as 1GiB: invalid byte size "lots" (use e.g. 1MiB, 512KiB, 1048576)`},
		{"memory limit small", func(c *Config) { c.Runtime.MemoryLimit = "16MiB" },
			`config: runtime.memory-limit = "16MiB": must be at least 32MiB (or off)`},
		{"groups per stream zero", func(c *Config) { c.Limits.GroupsPerStream = 0 },
			"config: limits.groups-per-stream = 0: must be between 1 and 1000000"},
		{"members per group zero", func(c *Config) { c.Limits.MembersPerGroup = 0 },
			"config: limits.members-per-group = 0: must be between 1 and 1000000"},
		{"joins per second zero", func(c *Config) { c.Limits.JoinsPerSecond = 0 },
			"config: limits.joins-per-second = 0: must be greater than 0 and at most 1000000 (joins per second per group)"},
		{"join burst zero", func(c *Config) { c.Limits.JoinBurst = 0 },
			"config: limits.join-burst = 0: must be between 1 and 1000000"},
		{"retained negative", func(c *Config) { c.Limits.RetainedMembersPerGroup = -1 },
			"config: limits.retained-members-per-group = -1: must be between 0 and 1000000"},
		{"browse max count too large", func(c *Config) { c.Limits.BrowseMaxCount = 10001 },
			"config: limits.browse-max-count = 10001: must be between 1 and 10000 (messages per page)"},
		{"group creation mode", func(c *Config) { c.Groups.Creation = "auto" },
			`config: groups.creation = "auto": must be one of implicit, explicit`},
		{"shards zero", func(c *Config) { c.Defaults.InitialShardCount = 0 },
			"config: defaults.initial-shard-count = 0: must be between 1 and 4096"},
		{"shards too many", func(c *Config) { c.Defaults.InitialShardCount = 4097 },
			"config: defaults.initial-shard-count = 4097: must be between 1 and 4096"},
		{"http addr no port", func(c *Config) { c.HTTP.Addr = "localhost" },
			`config: http.addr = "localhost": must be host:port`},
		{"http addr bad port", func(c *Config) { c.HTTP.Addr = "localhost:99999" },
			`config: http.addr = "localhost:99999": port must be a number between 0 and 65535`},
		{"redis addr no port", func(c *Config) { c.Redis.Addrs = []string{"a:1", "redis"} },
			`config: redis.addrs[1] = "redis": must be host:port`},
		{"redis addr no host", func(c *Config) { c.Redis.Addrs = []string{":6379"} },
			`config: redis.addrs[0] = ":6379": must be host:port with a non-empty host`},
		{"redis addr port zero", func(c *Config) { c.Redis.Addrs = []string{"r:0"} },
			`config: redis.addrs[0] = "r:0": port must be a number between 1 and 65535`},
		{"redis addr twice", func(c *Config) { c.Redis.Addrs = []string{"r:1", "r:1"} },
			`config: redis.addrs[1] = "r:1": is listed twice`},
		{"redis db", func(c *Config) { c.Redis.DB = -1 },
			`config: redis.db = -1: must not be negative`},
		{"redis dial timeout", func(c *Config) { c.Redis.DialTimeout = 0 },
			`config: redis.dial-timeout = 0s: must be greater than 0`},
		{"redis read timeout", func(c *Config) { c.Redis.ReadTimeout = 0 },
			`config: redis.read-timeout = 0s: must be greater than 0`},
		{"redis write timeout", func(c *Config) { c.Redis.WriteTimeout = 0 },
			`config: redis.write-timeout = 0s: must be greater than 0`},
		{"key prefix chars", func(c *Config) { c.Store.KeyPrefix = "rsc:prod" },
			`config: store.key-prefix = "rsc:prod": contains ':'; only letters, digits, '.', '_' and '-' are allowed`},
		{"key prefix empty", func(c *Config) { c.Store.KeyPrefix = "" },
			`config: store.key-prefix = "": must not be empty`},
		{"token secret missing", func(c *Config) {
			c.Auth.Users = []User{{Username: "a", Password: "p", Roles: []string{"READ"}}}
		}, `config: auth.token-secret = "": is required (at least 16 bytes) when auth.users is set`},
		{"token secret short", func(c *Config) { c.Auth.TokenSecret = "short-secret" },
			`config: auth.token-secret = (12 bytes, redacted): must be at least 16 bytes`},
		{"token ttl", func(c *Config) { c.Auth.TokenTTL = 0 },
			`config: auth.token-ttl = 0s: must be greater than 0`},
		{"rate limit", func(c *Config) { c.Auth.AdminRateLimit = 0 },
			`config: auth.admin-rate-limit = 0: must be greater than 0 (requests per second)`},
		{"rate burst", func(c *Config) { c.Auth.AdminRateBurst = 0 },
			`config: auth.admin-rate-burst = 0: must be at least 1`},
		{"failed auth rate", func(c *Config) { c.Auth.FailedAuthPerAddressRate = 0 },
			`config: auth.failed-auth-per-address-rate = 0: must be greater than 0 (failed credentials regained per second)`},
		{"failed auth burst", func(c *Config) { c.Auth.FailedAuthPerUserBurst = 0 },
			`config: auth.failed-auth-per-user-burst = 0: must be at least 1`},
		{"refusal window", func(c *Config) { c.Audit.RefusalWindow = time.Millisecond },
			`config: audit.refusal-window = 1ms: must be between 1s and 1h`},
		{"empty username", func(c *Config) { withUsers(c, User{Password: "p", Roles: []string{"READ"}}) },
			`config: auth.users[0].username = "": must not be empty`},
		{"colon in username", func(c *Config) { withUsers(c, User{Username: "a:b", Password: "p", Roles: []string{"READ"}}) },
			`config: auth.users[0].username = "a:b": must not contain ':' or whitespace`},
		{"duplicate username", func(c *Config) {
			withUsers(c, User{Username: "a", Password: "p", Roles: []string{"READ"}}, User{Username: "a", Password: "q", Roles: []string{"WRITE"}})
		}, `config: auth.users[1].username = "a": is already used by auth.users[0]`},
		{"empty password", func(c *Config) { withUsers(c, User{Username: "a", Roles: []string{"READ"}}) },
			`config: auth.users[0].password = "": must not be empty`},
		{"bad bcrypt", func(c *Config) {
			withUsers(c, User{Username: "a", Password: "$2b$10$tooShort", Roles: []string{"READ"}})
		},
			`config: auth.users[0].password = (redacted): looks like a bcrypt hash but is malformed`},
		{"unknown role", func(c *Config) { withUsers(c, User{Username: "a", Password: "p", Roles: []string{"READ", "ROOT"}}) },
			`config: auth.users[0].roles[1] = "ROOT": must be one of READ, WRITE, MEMBER, ADMIN, MONITOR`},
		{"lowercase role", func(c *Config) { withUsers(c, User{Username: "a", Password: "p", Roles: []string{"read"}}) },
			`config: auth.users[0].roles[0] = "read": must be one of READ, WRITE, MEMBER, ADMIN, MONITOR`},
		{"token ttl too short", func(c *Config) { c.Auth.TokenTTL = time.Second },
			`config: auth.token-ttl = 1s: must be between 1m0s and 8760h0m0s`},
		{"previous secret short", func(c *Config) { c.Auth.PreviousTokenSecrets = []string{"short-old"} },
			`config: auth.previous-token-secrets[0] = (9 bytes, redacted): must be at least 16 bytes`},
		{"previous secret is current", func(c *Config) { c.Auth.TokenSecret = secret16; c.Auth.PreviousTokenSecrets = []string{secret16} },
			`config: auth.previous-token-secrets[0] = (redacted): is auth.token-secret itself`},
		{"no roles", func(c *Config) { withUsers(c, User{Username: "a", Password: "p"}) },
			`config: auth.users[0].roles = []: must name at least one of READ, WRITE, MEMBER`},
		{"member api without member", func(c *Config) {
			withUsers(c, User{Username: "r", Password: "p", Roles: []string{"READ"}})
			c.Auth.AuthenticateMemberAPI = true
		},
			`config: auth.authenticate-member-api = true: needs at least one user in auth.users with role MEMBER`},
		{"provider", func(c *Config) { c.Cluster.Provider = "k8s" },
			`config: cluster.provider = "k8s": must be one of single, automanaged, kubernetes, test`},
		{"cluster name", func(c *Config) { c.Cluster.Name = "" },
			`config: cluster.name = "": must not be empty`},
		{"cluster host", func(c *Config) { c.Cluster.Host = "" },
			`config: cluster.host = "": must not be empty`},
		{"cluster host with port", func(c *Config) { c.Cluster.Host = "h:1" },
			`config: cluster.host = "h:1": must be a host name or IP address (no port)`},
		{"cluster port", func(c *Config) { c.Cluster.Port = 70000 },
			`config: cluster.port = 70000: must be between 0 and 65535`},
		{"cluster seed", func(c *Config) { c.Cluster.Seeds = []string{"n1"} },
			`config: cluster.seeds[0] = "n1": must be host:port`},
		{"node id", func(c *Config) { c.Cluster.NodeID = "node 1" },
			`config: cluster.node-id = "node 1": contains ' '`},
		{"log level", func(c *Config) { c.Log.Level = "verbose" },
			`config: log.level = "verbose": must be one of debug, info, warn, error`},
		{"log format", func(c *Config) { c.Log.Format = "xml" },
			`config: log.format = "xml": must be one of text, json`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Default()
			// These cases configure READ-only users: leave heartbeats open so that each case
			// reports its own problem only (the MEMBER requirement is tested below).
			cfg.Auth.AuthenticateMemberAPI = false
			c.mutate(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Len(t, strings.Split(err.Error(), "\n"), 1, "exactly one problem: %v", err)
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	cfg := Default()
	cfg.HTTP.Addr = "nope"
	cfg.Defaults.InitialShardCount = 0
	cfg.Log.Level = "loud"
	err := cfg.Validate()
	require.Error(t, err)
	assert.Len(t, strings.Split(err.Error(), "\n"), 3)
}

func TestValidateNeverEchoesSecrets(t *testing.T) {
	cfg := Default()
	cfg.Auth.TokenSecret = "tiny-secret"
	cfg.Auth.Users = []User{{Username: "a", Password: "$2y$04$brokenbrokenbroken", Roles: []string{"NOPE"}}}
	err := cfg.Validate()
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "tiny-secret")
	assert.NotContains(t, err.Error(), "brokenbroken")
}

func TestValidateAccepts(t *testing.T) {
	cfg := Default()
	withUsers(&cfg,
		User{Username: "admin", Password: "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy", Roles: []string{"WRITE"}},
		User{Username: "member", Password: "m", Roles: []string{"MEMBER"}})
	cfg.Auth.AuthenticateMemberAPI = true
	cfg.HTTP.Addr = ":0"
	cfg.HTTP.BodyLimit = 1 * KiB
	cfg.Redis.Addrs = []string{"[::1]:6379", "redis-0.redis:6379"}
	cfg.Defaults.InitialShardCount = 4096
	cfg.Cluster.Provider = ProviderAutomanaged
	cfg.Cluster.Host = "::"
	cfg.Cluster.AdvertiseHost = "rsc-1.internal"
	cfg.Cluster.Port = 7000
	cfg.Cluster.ManagePort = 7001
	cfg.Cluster.Seeds = []string{"rsc-1.internal:7001", "10.0.0.1:7001"}
	cfg.Cluster.Insecure = true
	cfg.Store.KeyPrefix = "team_a.rsc-1"
	assert.NoError(t, cfg.Validate())
}

// Sentinel replaces redis.addrs: the default address does not count as set,
// and the store is not the embedded one.
func TestValidateAcceptsSentinel(t *testing.T) {
	cfg := Default()
	cfg.Redis.Sentinel = RedisSentinel{MasterName: "mymaster", Addrs: []string{"s1:26379", "s2:26379"}, Password: "pw"}
	require.NoError(t, cfg.Validate())
	assert.False(t, cfg.Embedded())
	cfg.Redis.Addrs = nil
	require.NoError(t, cfg.Validate())
	assert.False(t, cfg.Embedded())
	assert.Equal(t, "***", cfg.Redacted().Redis.Sentinel.Password)
}

func TestWarnings(t *testing.T) {
	assert.Empty(t, Default().Warnings())

	cfg := Default()
	cfg.Coordination.MemberLeaseTTL = 5 * time.Second // valid, but < 3 x 3s
	require.NoError(t, cfg.Validate())
	w := cfg.Warnings()
	require.Len(t, w, 1)
	assert.Contains(t, w[0], "coordination.member-lease-ttl = 5s is less than 3 x coordination.heartbeat-interval (3s)")

	cfg = Default()
	cfg.Redis.Addrs = nil
	cfg.Coordination.RebalanceTimeout = 4 * time.Second
	w = cfg.Warnings()
	require.Len(t, w, 2)
	assert.Contains(t, strings.Join(w, "\n"), "EMBEDDED IN-PROCESS REDIS")
	assert.Contains(t, strings.Join(w, "\n"), "coordination.rebalance-timeout = 4s")
}

// Secure by default (issue 10): with users configured, heartbeats need a MEMBER credential
// unless the operator opts out; with no users, only a loopback listener may run open.
func TestSecureByDefault(t *testing.T) {
	cfg := Default()
	require.True(t, cfg.Auth.AuthenticateMemberAPI, "member-API authentication is on by default")
	require.NoError(t, cfg.Validate(), "the default listens on loopback with no users: fine for development")

	withUsers(&cfg, User{Username: "ops", Password: "p", Roles: []string{RoleWrite}})
	err := cfg.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "auth.authenticate-member-api = true: needs at least one user in auth.users with role MEMBER")
	cfg.Auth.AuthenticateMemberAPI = false
	require.NoError(t, cfg.Validate(), "explicit opt-out")
	cfg.Auth.AuthenticateMemberAPI = true
	cfg.Auth.Users = append(cfg.Auth.Users, User{Username: "w", Password: "p", Roles: []string{RoleMember}})
	require.NoError(t, cfg.Validate())

	for _, addr := range []string{":8080", "0.0.0.0:8080", "10.1.2.3:80", "[::]:8080", "coordinator.internal:8080"} {
		open := Default()
		open.HTTP.Addr = addr
		err := open.Validate()
		require.Error(t, err, addr)
		assert.Contains(t, err.Error(), `config: http.addr = "`+addr+`": listens beyond loopback with no auth.users`)
		assert.Contains(t, err.Error(), "auth.allow-unauthenticated")
		open.Auth.AllowUnauthenticated = true
		require.NoError(t, open.Validate(), addr)
	}
	for _, addr := range []string{"127.0.0.1:8080", "127.0.0.2:0", "[::1]:9000", "localhost:8080"} {
		lo := Default()
		lo.HTTP.Addr = addr
		require.NoError(t, lo.Validate(), addr)
	}
}

func TestUserStreamScopes(t *testing.T) {
	cfg := Default()
	withUsers(&cfg, User{Username: "w", Password: "p", Roles: []string{RoleMember}, Streams: []string{"orders", "payments:*", "*"}})
	require.NoError(t, cfg.Validate())
	for _, bad := range []string{"", "a*b", "{orders}", "x\ty"} {
		c := Default()
		withUsers(&c, User{Username: "w", Password: "p", Roles: []string{RoleMember}, Streams: []string{bad}})
		err := c.Validate()
		require.Error(t, err, "%q", bad)
		assert.Contains(t, err.Error(), "auth.users[0].streams[0]")
	}
}

func TestParseMemoryLimit(t *testing.T) {
	for in, want := range map[string]MemoryLimitSetting{
		"auto": {Auto: true}, "": {Auto: true}, "OFF": {Off: true}, "1GiB": {Bytes: GiB}, "33554432": {Bytes: 32 * MiB},
	} {
		got, err := ParseMemoryLimit(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}
