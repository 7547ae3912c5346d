package authz

import (
	"errors"

	"github.com/redisstream/coordinator/config"
)

// ErrForbidden: the principal may not do what it asked; the wrapping
// *Refusal's message says why (a role it lacks, or the scope that excludes
// the stream or group). Transports answer it like HTTP 403 FORBIDDEN.
var ErrForbidden = errors.New("authz: forbidden")

// Refusal is a decision against a principal; Msg is written for the caller.
type Refusal struct{ Msg string }

func (r *Refusal) Error() string        { return r.Msg }
func (r *Refusal) Is(target error) bool { return target == ErrForbidden }

// Principal is who a request runs as: a configured user's name, rights and
// scopes.
type Principal struct {
	Name    string
	Roles   Roles
	Streams Scope // nil: every stream
	Groups  Scope // nil: every consumer group
}

// FromUser is the principal of a configured user, with the rights of its
// configured roles.
func FromUser(u config.User) Principal {
	return Principal{Name: u.Username, Roles: UserRoles(u.Roles), Streams: NewScope(u.Streams), Groups: NewScope(u.Groups)}
}

// Check is the decision: may p use an operation that needs one of the
// rights in want (wantName names them in the refusal) on stream prefix
// stream and consumer group group ("" = the operation names none)? nil, or
// a *Refusal (errors.Is ErrForbidden).
func (p Principal) Check(want Roles, wantName, stream, group string) error {
	if p.Roles&want == 0 {
		return &Refusal{Msg: "this route needs the " + wantName + " role"}
	}
	if stream != "" && !p.Streams.Allows(stream) {
		return &Refusal{Msg: "user " + p.Name + " is scoped to streams " + p.Streams.String() + " (auth.users[].streams)"}
	}
	if group != "" && !p.Groups.Allows(group) {
		return &Refusal{Msg: "user " + p.Name + " is scoped to consumer groups " + p.Groups.String() + " (auth.users[].groups)"}
	}
	return nil
}

// MayHeartbeat decides whether p may heartbeat (join, leave) as a member of
// consumer group group of stream prefix stream: the MEMBER right (ADMIN
// holds it) and both scopes.
func (p Principal) MayHeartbeat(stream, group string) error {
	return p.Check(RoleMember, config.RoleMember, stream, group)
}
