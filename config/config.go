package config

import (
	"os"
	"strings"
	"time"
)

// Config is the whole coordinator configuration (SPEC §8). Every field has a
// koanf tag naming its kebab-case key; the full key of a field is the dotted
// path of tags, e.g. "coordination.member-lease-ttl". The help tag is the
// one-line description shown in --help.
type Config struct {
	HTTP         HTTP         `koanf:"http"`
	Redis        Redis        `koanf:"redis"`
	Store        Store        `koanf:"store"`
	Auth         Auth         `koanf:"auth"`
	Coordination Coordination `koanf:"coordination"`
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

// Failpoint holds switches for tests only (test/reshard): they break the
// coordinator on purpose. Leave them unset in production.
type Failpoint struct {
	ReshardHold string `koanf:"reshard-hold" help:"TEST ONLY: this node's resharding driver keeps every migration in this state (PREPARING, ACTIVE, DRAINING or ROLLING_BACK); empty = off"`
}

// Metrics configures where Prometheus metrics are served besides the
// authenticated /metrics route of http.addr.
type Metrics struct {
	Addr           string        `koanf:"addr" help:"extra listener host:port serving only GET /metrics without authentication, for scrapers (empty = none)"`
	SampleInterval time.Duration `koanf:"sample-interval" validate:"min=100ms,max=1h" help:"how often per-group gauges (unowned shards, lag, pending) are sampled from the assignments and Redis"`
}

// Shutdown bounds the graceful shutdown on SIGTERM.
type Shutdown struct {
	Timeout    time.Duration `koanf:"timeout" validate:"min=1s,max=10m" help:"most time from SIGTERM to exit: drain HTTP, finish in-flight requests, hand groups over; then exit anyway"`
	DrainDelay time.Duration `koanf:"drain-delay" validate:"min=0" help:"after SIGTERM, keep the HTTP port open answering 503 SHUTTING_DOWN (readiness 503) this long before closing it, so load balancers notice"`
}

// Audit configures the audit log of admin mutations and logins (always
// written to the log; optionally also to a capped Redis stream).
type Audit struct {
	RedisStream string `koanf:"redis-stream" help:"also XADD every audit record to this Redis stream key (empty = log only)"`
	RedisMaxLen int    `koanf:"redis-maxlen" validate:"min=1,max=100000000" help:"approximate most entries kept in audit.redis-stream (XADD MAXLEN ~)"`
	// Requests refused before authentication are summarised per address.
	RefusalWindow    time.Duration `koanf:"refusal-window" validate:"min=1s,max=1h" help:"requests refused before authentication: the first per address per window is audited, the rest summarised in one record at its end"`
	RefusalAddresses int           `koanf:"refusal-addresses" validate:"min=1,max=1000000" help:"most client addresses tracked per audit.refusal-window; refusals from more are summarised in one record"`
}

// HTTP configures the fiber front (member protocol, admin, monitoring, debug).
type HTTP struct {
	Addr      string   `koanf:"addr" help:"HTTP listen address host:port (port 0 picks a free port)"`
	BodyLimit ByteSize `koanf:"body-limit" validate:"min=1024,max=67108864" help:"largest accepted request body, e.g. 1MiB (1KiB..64MiB)"`
	// AllowedOrigins: pages on these origins may send state-changing
	// requests (others are refused 403 CROSS_ORIGIN_REQUEST).
	AllowedOrigins []string `koanf:"allowed-origins" help:"origins (scheme://host[:port]) whose browser pages may change state; empty = only the coordinator's own pages and non-browser clients"`
}

// Redis configures the go-redis client. No addresses means an embedded
// in-process Redis, for development only.
type Redis struct {
	Addrs        []string      `koanf:"addrs" help:"Redis addresses host:port, comma separated; empty = embedded development Redis"`
	Username     string        `koanf:"username" help:"Redis ACL username"`
	Password     string        `koanf:"password" secret:"true" help:"Redis password"`
	DB           int           `koanf:"db" validate:"min=0" help:"Redis logical database (standalone Redis only)"`
	TLS          bool          `koanf:"tls" help:"connect to Redis over TLS"`
	DialTimeout  time.Duration `koanf:"dial-timeout" validate:"gt=0" help:"Redis connect timeout"`
	ReadTimeout  time.Duration `koanf:"read-timeout" validate:"gt=0" help:"Redis read timeout"`
	WriteTimeout time.Duration `koanf:"write-timeout" validate:"gt=0" help:"Redis write timeout"`
}

// Store configures the persistence plugin.
type Store struct {
	KeyPrefix       string        `koanf:"key-prefix" help:"prefix of every coordinator-owned Redis key ([A-Za-z0-9._-])"`
	WaitReplicas    int           `koanf:"wait-replicas" validate:"min=0,max=16" help:"every state write waits until this many Redis replicas acknowledged it (WAIT); 0 = do not wait"`
	WaitTimeout     time.Duration `koanf:"wait-timeout" validate:"gt=0" help:"how long a write waits for store.wait-replicas before it fails as unavailable (< redis.read-timeout)"`
	TrustEmptyStore bool          `koanf:"trust-empty-store" help:"treat a Redis without coordinator state as a new deployment and grant at once (default false: each group waits about one heartbeat interval and checks its shard streams for readers of an earlier data set)"`
}

// Coordination holds the timing rules of the member protocol.
type Coordination struct {
	HeartbeatInterval time.Duration `koanf:"heartbeat-interval" validate:"gt=0" help:"heartbeat interval told to members"`
	MemberLeaseTTL    time.Duration `koanf:"member-lease-ttl" validate:"gt=0" help:"a member silent this long is expired (> heartbeat-interval, >= 3x recommended)"`
	RebalanceTimeout  time.Duration `koanf:"rebalance-timeout" validate:"gt=0" help:"time a member has to release revoked shards before it is fenced"`
	MemberRetention   time.Duration `koanf:"member-retention" validate:"gt=0" help:"how long expired and fenced members are kept for monitoring"`
}

// Groups configures how consumer groups come into being and the life cycle
// of their activations.
type Groups struct {
	Creation        string        `koanf:"creation" help:"implicit: a member's join (memberEpoch 0) or producer routing creates an unknown group; explicit: only POST /coord/v1/streams/{p}/groups/{g} does"`
	IdlePassivation time.Duration `koanf:"idle-passivation" validate:"min=0" hint:"0 = never passivate" help:"a group with no live member for this long gives its activation up (0 = never)"`
	SweepInterval   time.Duration `koanf:"sweep-interval" validate:"gt=0" help:"how often groups with live members that no node hosts are activated, so dead members expire"`
}

// Resharding configures how streams change their shard count (migrations).
type Resharding struct {
	MaxShardCount    int           `koanf:"max-shard-count" validate:"min=1,max=4096" help:"largest targetShardCount (and initialShardCount) a stream may have (1..4096)"`
	RoutingGrace     time.Duration `koanf:"routing-grace" validate:"gt=0" help:"how long after a routing change producers may still write with the older routing (at least the producers' routing cache lifetime, 30s in the Go SDK); removed shards are retired no earlier"`
	PollInterval     time.Duration `koanf:"poll-interval" validate:"gt=0" help:"how often each node looks for migrations to drive"`
	RetiredRetention time.Duration `koanf:"retired-retention" validate:"min=1s" help:"how long a retired shard stream is kept, renamed, before Redis expires it (its data stays readable until then)"`
	History          int           `koanf:"history" validate:"min=1,max=1000" help:"finished migrations kept per stream for debugging (1..1000)"`
	DriverLease      time.Duration `koanf:"driver-lease" validate:"min=1s" help:"lease of the node driving a stream's migration; another node takes the migration over about this long after its driver died"`
}

// Defaults are applied to newly created streams.
type Defaults struct {
	InitialShardCount int `koanf:"initial-shard-count" validate:"min=1,max=4096" help:"shard count of a stream created without one (1..4096)"`
}

// Group creation modes.
const (
	CreationImplicit = "implicit"
	CreationExplicit = "explicit"
)

// Limits bound the state members and callers can make the coordinator keep.
// Each is enforced before anything is stored and refused with an error that
// names its key (docs/OPERATIONS.md, "Limits").
type Limits struct {
	GroupsPerStream         int     `koanf:"groups-per-stream" validate:"min=1,max=1000000" help:"most consumer groups one stream may have; creating one more is refused"`
	MembersPerGroup         int     `koanf:"members-per-group" validate:"min=1,max=1000000" help:"most members (any state but EXPIRED/FENCED) one group may have; a join beyond it is answered RETRY"`
	JoinsPerSecond          float64 `koanf:"joins-per-second" validate:"finite,gt=0,max=1000000" hint:"joins per second per group" help:"sustained joins (memberEpoch 0) per second per group; faster joins are answered RETRY"`
	JoinBurst               int     `koanf:"join-burst" validate:"min=1,max=1000000" help:"joins one group accepts at once before limits.joins-per-second applies"`
	RetainedMembersPerGroup int     `koanf:"retained-members-per-group" validate:"min=0,max=1000000" help:"most EXPIRED/FENCED members kept per group for monitoring; the oldest are dropped first"`
	BrowseMaxCount          int     `koanf:"browse-max-count" validate:"min=1,max=10000" hint:"messages per page" help:"most messages one page of GET /coord/v1/streams/{p}/shards/{i}/messages returns; a larger count is refused with 400 (1..10000)"`
}

// Cluster configures the actor host cluster. Which keys a provider uses is
// checked by Validate: a key the chosen provider would ignore is an error.
type Cluster struct {
	Name          string   `koanf:"name" help:"cluster name; nodes only join a cluster of the same name"`
	Provider      string   `koanf:"provider" help:"cluster provider: single (one node, no network), automanaged (static seeds), kubernetes (pod watch) or test (in-process)"`
	Host          string   `koanf:"host" help:"host or IP the actor remote binds to (0.0.0.0 = all interfaces; then set cluster.advertise-host)"`
	AdvertiseHost string   `koanf:"advertise-host" help:"host or IP other nodes reach this node's actor remote at (default: cluster.host; the pod IP on Kubernetes)"`
	Port          int      `koanf:"port" validate:"min=0,max=65535" hint:"0 picks a free port" help:"actor remote port; automanaged and kubernetes need a fixed one, test may use 0 (a free port); single opens none"`
	ManagePort    int      `koanf:"manage-port" validate:"omitempty,min=1,max=65535" help:"automanaged: port of this node's cluster health endpoint, which the other nodes poll (required with automanaged)"`
	Seeds         []string `koanf:"seeds" help:"automanaged: host:manage-port of ALL nodes, this one included, comma separated"`
	NodeID        string   `koanf:"node-id" help:"unique id of this node (default: derived from the hostname)"`
}

// Cluster providers.
const (
	ProviderSingle      = "single"
	ProviderAutomanaged = "automanaged"
	ProviderKubernetes  = "kubernetes"
	ProviderTest        = "test"
)

// DefaultClusterHost is the default cluster.host.
const DefaultClusterHost = "127.0.0.1"

// Log configures logging.
type Log struct {
	Level  string `koanf:"level" validate:"oneof=debug info warn error" help:"log level: debug, info, warn or error"`
	Format string `koanf:"format" validate:"oneof=text json" help:"log format: text or json"`
}

// Default returns the built-in defaults (the first layer of Load). NodeID is
// derived from the hostname.
func Default() Config {
	return Config{
		HTTP: HTTP{Addr: "127.0.0.1:8080", BodyLimit: 1 * MiB, AllowedOrigins: []string{}},
		Redis: Redis{
			Addrs:        []string{"127.0.0.1:6379"},
			DialTimeout:  2 * time.Second,
			ReadTimeout:  1 * time.Second,
			WriteTimeout: 1 * time.Second,
		},
		Store: Store{KeyPrefix: "rsc", WaitTimeout: 200 * time.Millisecond},
		Auth: Auth{
			TokenTTL:              7 * 24 * time.Hour,
			TokenRevocationWindow: 10 * time.Second,
			PreviousTokenSecrets:  []string{},
			AuthenticateMemberAPI: true,
			Users:                 []User{},
			AdminRateLimit:        10,
			AdminRateBurst:        20,

			FailedAuthPerAddressRate:  0.2,
			FailedAuthPerAddressBurst: 30,
			FailedAuthPerUserRate:     0.1,
			FailedAuthPerUserBurst:    10,
		},
		Coordination: Coordination{
			HeartbeatInterval: 3 * time.Second,
			MemberLeaseTTL:    15 * time.Second,
			RebalanceTimeout:  60 * time.Second,
			MemberRetention:   time.Hour,
		},
		Groups:   Groups{Creation: CreationImplicit, IdlePassivation: 2 * time.Minute, SweepInterval: 30 * time.Second},
		Defaults: Defaults{InitialShardCount: 4},
		Resharding: Resharding{MaxShardCount: 4096, RoutingGrace: time.Minute, PollInterval: time.Second,
			RetiredRetention: 7 * 24 * time.Hour, History: 20, DriverLease: 10 * time.Second},
		Limits: Limits{
			GroupsPerStream:         100,
			MembersPerGroup:         1000,
			JoinsPerSecond:          20,
			JoinBurst:               100,
			RetainedMembersPerGroup: 100,
			BrowseMaxCount:          1000,
		},
		Cluster: Cluster{
			Name:     "rsc",
			Provider: ProviderSingle,
			Host:     DefaultClusterHost,
			Port:     0,
			Seeds:    []string{},
			NodeID:   defaultNodeID(),
		},
		Log:      Log{Level: "info", Format: "text"},
		Metrics:  Metrics{Addr: "", SampleInterval: 15 * time.Second},
		Shutdown: Shutdown{Timeout: 30 * time.Second, DrainDelay: 0},
		Audit:    Audit{RedisStream: "", RedisMaxLen: 100000, RefusalWindow: time.Minute, RefusalAddresses: 1000},
		Runtime:  Runtime{MemoryLimit: MemoryLimitAuto},
		Mailbox:  Mailbox{Principals: []string{}, MaxRequests: 10000, ReplyTTL: 30 * time.Second, Block: time.Second, Batch: 100},
	}
}

// Embedded reports whether no Redis address is configured, in which case the
// coordinator runs an embedded in-process Redis (development only).
func (c Config) Embedded() bool { return len(c.Redis.Addrs) == 0 }

// Redacted returns a deep copy safe to log: every non-empty password and
// secret is replaced by "***" (empty ones stay empty, so "unset" stays visible).
func (c Config) Redacted() Config {
	r := c
	r.Redis.Addrs = cloneStrings(c.Redis.Addrs)
	r.Cluster.Seeds = cloneStrings(c.Cluster.Seeds)
	r.HTTP.AllowedOrigins = cloneStrings(c.HTTP.AllowedOrigins)
	r.Mailbox.Principals = cloneStrings(c.Mailbox.Principals)
	r.Redis.Password = redact(c.Redis.Password)
	r.Auth.TokenSecret = redact(c.Auth.TokenSecret)
	if c.Auth.PreviousTokenSecrets != nil {
		r.Auth.PreviousTokenSecrets = make([]string, len(c.Auth.PreviousTokenSecrets))
		for i, p := range c.Auth.PreviousTokenSecrets {
			r.Auth.PreviousTokenSecrets[i] = redact(p)
		}
	}
	if c.Auth.Users != nil {
		r.Auth.Users = make([]User, len(c.Auth.Users))
		for i, u := range c.Auth.Users {
			r.Auth.Users[i] = User{Username: u.Username, Password: redact(u.Password), Roles: cloneStrings(u.Roles), Streams: cloneStrings(u.Streams), Groups: cloneStrings(u.Groups)}
		}
	}
	return r
}

const redactedValue = "***"

func redact(s string) string {
	if s == "" {
		return ""
	}
	return redactedValue
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string{}, s...)
}

// hostname is replaced in tests.
var hostname = os.Hostname

// defaultNodeID derives a node id from the hostname, keeping only characters
// allowed in a node id.
func defaultNodeID() string {
	h, err := hostname()
	if err != nil {
		return "node"
	}
	var b strings.Builder
	for _, r := range h {
		if isIDChar(r) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "node"
	}
	return b.String()
}

func isIDChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
}
