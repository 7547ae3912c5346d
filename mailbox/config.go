package mailbox

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Group is the consumer group every node reads the request streams with.
const Group = "coordinator"

// Options configure a Reader.
type Options struct {
	KeyPrefix  string   // store.key-prefix
	NodeID     string   // consumer name in Group
	Principals []string // whose request streams are read ("-" = member authentication off)
	// Auth is the auth section: the roles and scopes of each principal.
	// Member authentication is on when it lists users and
	// authenticate-member-api is set; then every principal must be a user.
	Auth        config.Auth
	BodyLimit   int           // http.body-limit: largest accepted body
	MaxRequests int           // mailbox.max-requests: XADD MAXLEN ~ members use (documented; the reader trims too)
	MaxReplies  int           // most elements kept in one reply list (LTRIM)
	ReplyTTL    time.Duration // PEXPIRE of a reply list on every push
	Block       time.Duration // XREADGROUP BLOCK
	Batch       int           // XREADGROUP COUNT
	// CallTimeout bounds each Service call (as api's request timeout);
	// a request whose member stops waiting sooner is bounded by that.
	CallTimeout time.Duration
	// Workers bounds the requests handled at once on this node.
	Workers int
	Logger  *slog.Logger
	Metrics Metrics
}

// Metrics receives one observation per request read: its result (one of
// the Result* constants), the heartbeat status it was answered with as
// rsc_heartbeats_total labels it (the protocol status of a 200, REJECTED for
// a 4xx, ERROR for a 5xx, "" when nothing was answered) and how long it took
// from read to reply.
type Metrics interface {
	MailboxRequest(result, status string, d time.Duration)
}

// Results of a request (the result label of rsc_mailbox_requests_total).
const (
	ResultOK        = "ok"        // answered 200 (every protocol outcome)
	ResultRejected  = "rejected"  // malformed entry or body: answered 400 when a reply key can be named, else dropped
	ResultForbidden = "forbidden" // answered 403 (role, scope, member owned by another principal)
	ResultError     = "error"     // answered with another 4xx or a 5xx (unavailable, timeout, …)
	ResultExpired   = "expired"   // the member had stopped waiting: dropped unanswered
)

// Results lists every result, for metrics that pre-create their series.
var Results = []string{ResultOK, ResultRejected, ResultForbidden, ResultError, ResultExpired}

// Defaults of the options config leaves at zero.
const (
	DefaultMaxReplies  = 8
	DefaultCallTimeout = 10 * time.Second
	DefaultWorkers     = 256
)

func (o *Options) fill() error {
	if o.KeyPrefix == "" {
		o.KeyPrefix = protocol.DefaultMailboxKeyPrefix
	}
	if o.MaxReplies <= 0 {
		o.MaxReplies = DefaultMaxReplies
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.MaxRequests <= 0 {
		o.MaxRequests = protocol.DefaultMailboxMaxRequests
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.NodeID == "" {
		return fmt.Errorf("%w: NodeID is empty; pass cluster.node-id", ErrConfig)
	}
	if o.Block <= 0 || o.Batch <= 0 || o.ReplyTTL <= 0 || o.BodyLimit <= 0 {
		return fmt.Errorf("%w: mailbox.block (%v), mailbox.batch (%d), mailbox.reply-ttl (%v) and http.body-limit (%d) must be positive",
			ErrConfig, o.Block, o.Batch, o.ReplyTTL, o.BodyLimit)
	}
	if len(o.Principals) == 0 {
		return fmt.Errorf("%w: no principal to read requests for; set mailbox.principals or give a user the MEMBER role", ErrConfig)
	}
	return nil
}

// MemberAuth reports whether the member API authenticates (auth.users set
// and auth.authenticate-member-api on): then every principal is a user.
func MemberAuth(a config.Auth) bool { return len(a.Users) > 0 && a.AuthenticateMemberAPI }

// DefaultPrincipals are the principals read when mailbox.principals is
// empty: every user holding MEMBER or ADMIN, or "-" when member
// authentication is off.
func DefaultPrincipals(a config.Auth) []string {
	if !MemberAuth(a) {
		return []string{protocol.MailboxNoAuthPrincipal}
	}
	var out []string
	for _, u := range a.Users {
		for _, r := range u.Roles {
			if r == config.RoleMember || r == config.RoleAdmin {
				out = append(out, u.Username)
				break
			}
		}
	}
	return out
}
