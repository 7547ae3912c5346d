package config

import (
	"os"
	"slices"
	"strings"
	"time"
)

// Config is the whole coordinator configuration (SPEC §8); a key is the
// dotted path of koanf tags, e.g. "coordination.member-lease-ttl".
type Config struct {
	HTTP         HTTP         `koanf:"http"`
	Redis        Redis        `koanf:"redis"`
	Store        Store        `koanf:"store"`
	Auth         Auth         `koanf:"auth"`
	Coordination Coordination `koanf:"coordination"`
	Assignment   Assignment   `koanf:"assignment"`
	Groups       Groups       `koanf:"groups"`
	Defaults     Defaults     `koanf:"defaults"`
	Limits       Limits       `koanf:"limits"`
	Cluster      Cluster      `koanf:"cluster"`
	Resharding   Resharding   `koanf:"resharding"`
	Log          Log          `koanf:"log"`
	Metrics      Metrics      `koanf:"metrics"`
	Shutdown     Shutdown     `koanf:"shutdown"`
	Audit        Audit        `koanf:"audit"`
	Mailbox      Mailbox      `koanf:"mailbox"`
	Runtime      Runtime      `koanf:"runtime"`
	Failpoint    Failpoint    `koanf:"failpoint"`
}

// Failpoint holds switches for tests only (test/reshard) that break the
// coordinator on purpose; leave them unset in production.
type Failpoint struct {
	ReshardHold string `koanf:"reshard-hold" help:"TEST ONLY: this node's resharding driver keeps every migration in this state (PREPARING, ACTIVE, DRAINING or ROLLING_BACK); empty = off"`
}

// Metrics configures the Prometheus metrics besides http.addr's /metrics.
type Metrics struct {
	Addr           string        `koanf:"addr" validate:"omitempty,addr" help:"extra listener host:port serving only GET /metrics without authentication, for scrapers (empty = none)"`
	SampleInterval time.Duration `koanf:"sample-interval" default:"15s" validate:"min=100ms,max=1h" help:"how often per-group gauges (unowned shards, lag, pending) are sampled from the assignments and Redis"`
}

// Shutdown bounds the graceful shutdown on SIGTERM.
type Shutdown struct {
	Timeout    time.Duration `koanf:"timeout" default:"30s" validate:"min=1s,max=10m" help:"most time from SIGTERM to exit: drain HTTP, finish in-flight requests, hand groups over; then exit anyway"`
	DrainDelay time.Duration `koanf:"drain-delay" default:"0s" validate:"min=0" help:"after SIGTERM, keep the HTTP port open answering 503 SHUTTING_DOWN (readiness 503) this long before closing it, so load balancers notice"`
}

// Audit configures the audit log of admin mutations and logins.
type Audit struct {
	RedisStream      string        `koanf:"redis-stream" validate:"omitempty,trimmed" help:"also XADD every audit record to this Redis stream key (empty = log only)"`
	RedisMaxLen      int           `koanf:"redis-maxlen" default:"100000" validate:"min=1,max=100000000" help:"approximate most entries kept in audit.redis-stream (XADD MAXLEN ~)"`
	RefusalWindow    time.Duration `koanf:"refusal-window" default:"1m" validate:"min=1s,max=1h" help:"requests refused before authentication: the first per address per window is audited, the rest summarised in one record at its end"`
	RefusalAddresses int           `koanf:"refusal-addresses" default:"1000" validate:"min=1,max=1000000" help:"most client addresses tracked per audit.refusal-window; refusals from more are summarised in one record"`
}

// HTTP configures the fiber front (member protocol, admin, monitoring, debug).
type HTTP struct {
	Addr           string   `koanf:"addr" default:"127.0.0.1:8080" validate:"listen" help:"HTTP listen address host:port (port 0 picks a free port)"`
	BodyLimit      ByteSize `koanf:"body-limit" default:"1MiB" validate:"min=1024,max=67108864" help:"largest accepted request body, e.g. 1MiB (1KiB..64MiB)"`
	AllowedOrigins []string `koanf:"allowed-origins" validate:"dive,origin" help:"origins (scheme://host[:port]) whose browser pages may change state; empty = only the coordinator's own pages and non-browser clients"`
	TLS            HTTPTLS  `koanf:"tls"`
}

// HTTPTLS serves the HTTP front over TLS (1.2 or later): the API, the
// console, the OpenAPI document and /metrics. Files are re-read when they
// change.
type HTTPTLS struct {
	CertFile       string        `koanf:"cert-file" validate:"omitempty,trimmed" help:"PEM file of the server certificate (with its chain) for HTTPS on http.addr; with cert-manager, tls.crt; empty = plain HTTP"`
	KeyFile        string        `koanf:"key-file" validate:"omitempty,trimmed" help:"PEM file of the server certificate's private key; with cert-manager, tls.key"`
	ClientCAFile   string        `koanf:"client-ca-file" validate:"omitempty,trimmed" help:"PEM file of a CA: when set, every caller must present a client certificate it signed (on top of auth); empty = no client certificates"`
	ReloadInterval time.Duration `koanf:"reload-interval" default:"10s" validate:"min=1s,max=1h" help:"how often the http.tls files are checked for a rotation; a bad rotated file keeps the last good one"`
}

// Enabled reports whether HTTPS is configured (a certificate is set).
func (t HTTPTLS) Enabled() bool { return t.CertFile != "" || t.KeyFile != "" || t.ClientCAFile != "" }

// Redis configures the go-redis client.
type Redis struct {
	Addrs         []string      `koanf:"addrs" default:"127.0.0.1:6379" validate:"dive,hostport" help:"Redis addresses host:port, comma separated; empty = embedded development Redis"`
	Username      string        `koanf:"username" help:"Redis ACL username"`
	Password      string        `koanf:"password" secret:"true" help:"Redis password"`
	DB            int           `koanf:"db" validate:"min=0" help:"Redis logical database (standalone Redis only)"`
	TLS           bool          `koanf:"tls" help:"connect to Redis over TLS (verifying its certificate against the system's CAs, or redis.tls-ca-file)"`
	TLSCAFile     string        `koanf:"tls-ca-file" validate:"omitempty,trimmed" help:"with redis.tls: PEM file of the CA that signed Redis' certificate (a managed Redis with a private CA); empty = the system's CAs"`
	TLSCertFile   string        `koanf:"tls-cert-file" validate:"omitempty,trimmed" help:"with redis.tls: PEM client certificate, for a Redis that requires one (tls-auth-clients yes); with redis.tls-key-file"`
	TLSKeyFile    string        `koanf:"tls-key-file" validate:"omitempty,trimmed" help:"with redis.tls: PEM private key of redis.tls-cert-file"`
	TLSServerName string        `koanf:"tls-server-name" validate:"omitempty,trimmed" help:"with redis.tls: the name Redis' certificate must carry; empty = the host of the first redis.addrs entry"`
	TLSMinVersion string        `koanf:"tls-min-version" default:"1.2" validate:"oneof=1.2 1.3" help:"with redis.tls: the oldest TLS version accepted, 1.2 or 1.3"`
	DialTimeout   time.Duration `koanf:"dial-timeout" default:"2s" validate:"gt=0" help:"Redis connect timeout"`
	ReadTimeout   time.Duration `koanf:"read-timeout" default:"1s" validate:"gt=0" help:"Redis read timeout"`
	WriteTimeout  time.Duration `koanf:"write-timeout" default:"1s" validate:"gt=0" help:"Redis write timeout"`
	Sentinel      RedisSentinel `koanf:"sentinel"`
}

// RedisSentinel finds the Redis primary through Redis Sentinel and follows
// its failovers: the client asks the Sentinels for the primary's address,
// and reconnects when they promote a replica (+switch-master). redis.addrs
// is then left unset; username, password, db and the redis.tls settings
// apply to the primary (and the TLS ones to the Sentinels too).
type RedisSentinel struct {
	MasterName string   `koanf:"master-name" validate:"omitempty,trimmed" help:"name of the primary the Sentinels monitor (sentinel monitor NAME ...); with redis.sentinel.addrs, instead of redis.addrs"`
	Addrs      []string `koanf:"addrs" validate:"dive,hostport" help:"Sentinel addresses host:port, comma separated (list them all: any one that answers is enough)"`
	Username   string   `koanf:"username" help:"ACL username of the Sentinels, if they require one"`
	Password   string   `koanf:"password" secret:"true" help:"password of the Sentinels (requirepass or ACL on the Sentinels), if they require one"`
}

// Enabled reports whether the Redis primary is found through Sentinel.
func (s RedisSentinel) Enabled() bool { return s.MasterName != "" || len(s.Addrs) > 0 }

// Store configures the persistence plugin.
type Store struct {
	KeyPrefix       string        `koanf:"key-prefix" default:"rsc" validate:"name" help:"prefix of every coordinator-owned Redis key ([A-Za-z0-9._-])"`
	WaitReplicas    int           `koanf:"wait-replicas" validate:"min=0,max=16" help:"every state write waits until this many Redis replicas acknowledged it (WAIT); 0 = do not wait"`
	WaitTimeout     time.Duration `koanf:"wait-timeout" default:"200ms" validate:"gt=0" help:"how long a write waits for store.wait-replicas before it fails as unavailable (< redis.read-timeout)"`
	TrustEmptyStore bool          `koanf:"trust-empty-store" help:"treat a Redis without coordinator state as a new deployment and grant at once (default false: each group waits about one heartbeat interval and checks its shard streams for readers of an earlier data set)"`
}

// Coordination holds the timing rules of the member protocol.
type Coordination struct {
	HeartbeatInterval time.Duration `koanf:"heartbeat-interval" default:"3s" validate:"gt=0" help:"heartbeat interval told to members"`
	MemberLeaseTTL    time.Duration `koanf:"member-lease-ttl" default:"15s" validate:"gt=0" help:"a member silent this long is expired (> heartbeat-interval, >= 3x recommended)"`
	RebalanceTimeout  time.Duration `koanf:"rebalance-timeout" default:"60s" validate:"gt=0" help:"time a member has to release revoked shards before it is fenced"`
	MemberRetention   time.Duration `koanf:"member-retention" default:"1h" validate:"gt=0" help:"how long expired and fenced members are kept for monitoring"`
	// StaticSessionTimeout: 30s covers a pod restart on a warm node (stop, start, first join).
	StaticSessionTimeout time.Duration `koanf:"static-session-timeout" default:"30s" validate:"min=0" hint:"0 = a temporary leave is a leave" help:"how long a static member's temporary leave (memberEpoch -2) keeps its shards for the next process with the same instanceId (0 = no hold)"`
}

// Groups configures how groups are created and their activations' life.
type Groups struct {
	Creation        string        `koanf:"creation" default:"implicit" validate:"oneof=implicit explicit" help:"implicit: a member's join (memberEpoch 0) or producer routing creates an unknown group; explicit: only POST /coord/v1/streams/{p}/groups/{g} does"`
	IdlePassivation time.Duration `koanf:"idle-passivation" default:"2m" validate:"min=0" hint:"0 = never passivate" help:"a group with no live member for this long gives its activation up (0 = never)"`
	SweepInterval   time.Duration `koanf:"sweep-interval" default:"30s" validate:"gt=0" help:"how often groups with live members that no node hosts are activated, so dead members expire"`
}

// Resharding configures how streams change their shard count (migrations).
type Resharding struct {
	MaxShardCount    int           `koanf:"max-shard-count" default:"4096" validate:"min=1,max=4096" help:"largest targetShardCount (and initialShardCount) a stream may have (1..4096)"`
	RoutingGrace     time.Duration `koanf:"routing-grace" default:"1m" validate:"gt=0" help:"how long after a routing change producers may still write with the older routing (at least the producers' routing cache lifetime, 30s in the Go SDK); removed shards are retired no earlier"`
	PollInterval     time.Duration `koanf:"poll-interval" default:"1s" validate:"gt=0" help:"how often each node looks for migrations to drive"`
	RetiredRetention time.Duration `koanf:"retired-retention" default:"168h" validate:"min=1s" help:"how long a retired shard stream is kept, renamed, before Redis expires it (its data stays readable until then)"`
	History          int           `koanf:"history" default:"20" validate:"min=1,max=1000" help:"finished migrations kept per stream for debugging (1..1000)"`
	DriverLease      time.Duration `koanf:"driver-lease" default:"10s" validate:"min=1s" help:"lease of the node driving a stream's migration; another node takes the migration over about this long after its driver died"`
}

// Defaults are applied to newly created streams.
type Defaults struct {
	InitialShardCount int `koanf:"initial-shard-count" default:"4" validate:"min=1,max=4096" help:"shard count of a stream created without one (1..4096)"`
}

// Group creation modes.
const (
	CreationImplicit = "implicit"
	CreationExplicit = "explicit"
)

// Limits bound the state members and callers can make the coordinator keep
// (docs/OPERATIONS.md, "Limits").
type Limits struct {
	GroupsPerStream         int     `koanf:"groups-per-stream" default:"100" validate:"min=1,max=1000000" help:"most consumer groups one stream may have; creating one more is refused"`
	MembersPerGroup         int     `koanf:"members-per-group" default:"1000" validate:"min=1,max=1000000" help:"most members (any state but EXPIRED/FENCED) one group may have; a join beyond it is answered RETRY"`
	JoinsPerSecond          float64 `koanf:"joins-per-second" default:"20" validate:"finite,gt=0,max=1000000" hint:"joins per second per group" help:"sustained joins (memberEpoch 0) per second per group; faster joins are answered RETRY"`
	JoinBurst               int     `koanf:"join-burst" default:"100" validate:"min=1,max=1000000" help:"joins one group accepts at once before limits.joins-per-second applies"`
	RetainedMembersPerGroup int     `koanf:"retained-members-per-group" default:"100" validate:"min=0,max=1000000" help:"most EXPIRED/FENCED members kept per group for monitoring; the oldest are dropped first"`
	BrowseMaxCount          int     `koanf:"browse-max-count" default:"1000" validate:"min=1,max=10000" hint:"messages per page" help:"most messages one page of GET /coord/v1/streams/{p}/shards/{i}/messages returns; a larger count is refused with 400 (1..10000)"`
}

// Log configures logging.
type Log struct {
	Level  string `koanf:"level" default:"info" validate:"oneof=debug info warn error" help:"log level: debug, info, warn or error"`
	Format string `koanf:"format" default:"text" validate:"oneof=text json" help:"log format: text or json"`
}

// Default returns the built-in defaults: the default tags of Config, decoded
// as Load decodes them (its first layer); NodeID is derived from the hostname.
func Default() Config {
	var c Config
	if err := schema.DecodeDefaults(&c); err != nil {
		panic("config: a default tag does not decode: " + err.Error())
	}
	c.Cluster.NodeID = defaultNodeID()
	return c
}

// Embedded reports whether no Redis address is configured, in which case the
// coordinator runs an embedded in-process Redis (development only).
func (c Config) Embedded() bool { return len(c.Redis.Addrs) == 0 && !c.Redis.Sentinel.Enabled() }

// Redacted returns a deep copy safe to log: every non-empty password and
// secret is replaced by "***" (empty ones stay empty, so "unset" stays visible).
func (c Config) Redacted() Config {
	r := c
	r.Redis.Addrs, r.Cluster.Seeds, r.HTTP.AllowedOrigins = slices.Clone(c.Redis.Addrs), slices.Clone(c.Cluster.Seeds), slices.Clone(c.HTTP.AllowedOrigins)
	r.Mailbox.Principals = slices.Clone(c.Mailbox.Principals)
	r.Redis.Sentinel.Addrs = slices.Clone(c.Redis.Sentinel.Addrs)
	r.Redis.Password, r.Auth.TokenSecret = redact(c.Redis.Password), redact(c.Auth.TokenSecret)
	r.Redis.Sentinel.Password = redact(c.Redis.Sentinel.Password)
	r.Auth.PreviousTokenSecrets = each(c.Auth.PreviousTokenSecrets, redact)
	r.Auth.Users = each(c.Auth.Users, func(u User) User {
		return User{u.Username, redact(u.Password), slices.Clone(u.Roles), slices.Clone(u.Streams), slices.Clone(u.Groups)}
	})
	return r
}

func redact(s string) string {
	if s == "" {
		return ""
	}
	return "***"
}

// each maps f over s; nil stays nil.
func each[T any](s []T, f func(T) T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// hostname is replaced in tests.
var hostname = os.Hostname

// defaultNodeID derives a node id from the hostname, keeping only the
// characters allowed in one.
func defaultNodeID() string {
	h, _ := hostname()
	if id := strings.Map(idChar, h); id != "" {
		return id
	}
	return "node"
}

// idChar is r when it may appear in an id ([A-Za-z0-9._-]), else -1.
func idChar(r rune) rune {
	if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
		return r
	}
	return -1
}
