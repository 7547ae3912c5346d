package config

import (
	"fmt"
	"slices"
	"time"
)

// Mailbox configures the Redis mailbox, the second heartbeat transport
// (docs/PROTOCOL.md, "Redis mailbox"): members XADD heartbeats to their
// principal's request stream and BLPOP the answer from a reply list.
type Mailbox struct {
	Enabled     bool          `koanf:"enabled" help:"also answer member heartbeats sent through Redis (the mailbox transport, docs/PROTOCOL.md \"Redis mailbox\"); HTTP stays on"`
	Principals  []string      `koanf:"principals" help:"principals whose request streams this node reads: auth users with MEMBER or ADMIN, or \"-\" when member authentication is off; empty = every such user (or \"-\")"`
	MaxRequests int           `koanf:"max-requests" default:"10000" validate:"min=1,max=100000000" help:"approximate most entries of one principal's request stream (members XADD … MAXLEN ~ this; 1..100000000)"`
	ReplyTTL    time.Duration `koanf:"reply-ttl" default:"30s" validate:"min=1s,max=1h" help:"a member's reply list expires this long after the last reply pushed to it (1s..1h)"`
	Block       time.Duration `koanf:"block" default:"1s" validate:"min=10ms,max=10s" help:"how long one blocking read of the request streams waits (XREADGROUP BLOCK; 10ms..10s): also how long stopping the reader may take"`
	Batch       int           `koanf:"batch" default:"100" validate:"min=1,max=10000" help:"most requests one read returns (XREADGROUP COUNT; 1..10000)"`
}

// NoAuthPrincipal is the mailbox principal when member authentication is
// off; no user may have this name.
const NoAuthPrincipal = "-"

// memberAuth reports whether the member API authenticates.
func (a Auth) memberAuth() bool { return len(a.Users) > 0 && a.AuthenticateMemberAPI }

// checkMailbox holds the mailbox rules no tag can say: every listed
// principal must be able to heartbeat.
func (c Config) checkMailbox(bad badFunc) {
	for i, u := range c.Auth.Users {
		if u.Username == NoAuthPrincipal {
			bad(fmt.Sprintf("auth.users[%d].username", i), u.Username, "is reserved: the Redis mailbox uses %q for members when member authentication is off; pick another name", NoAuthPrincipal)
		}
	}
	if !c.Mailbox.Enabled {
		return
	}
	for i, p := range c.Mailbox.Principals {
		key := fmt.Sprintf("mailbox.principals[%d]", i)
		if !c.Auth.memberAuth() {
			if p != NoAuthPrincipal {
				bad(key, p, "member authentication is off (no auth.users, or auth.authenticate-member-api false): the only principal is %q", NoAuthPrincipal)
			}
			continue
		}
		j := slices.IndexFunc(c.Auth.Users, func(u User) bool { return u.Username == p })
		if j < 0 {
			bad(key, p, "is not a user of auth.users; list users with the MEMBER or ADMIN role")
			continue
		}
		if !slices.Contains(c.Auth.Users[j].Roles, RoleMember) && !slices.Contains(c.Auth.Users[j].Roles, RoleAdmin) {
			bad(key, p, "user has neither the MEMBER nor the ADMIN role, so it may not heartbeat; give it MEMBER or remove it here")
		}
	}
}
