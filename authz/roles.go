package authz

import "github.com/redisstream/coordinator/config"

// Roles is a set of rights.
type Roles uint8

// The rights a role grants (ParseRole).
const (
	RoleRead Roles = 1 << iota
	RoleWrite
	RoleMember
	RoleAdmin // only a user configured ADMIN: revoking tokens
)

// RoleAll are the rights a token lists for an ADMIN user (the reference's
// names: the token never lists ADMIN itself).
const RoleAll = RoleRead | RoleWrite | RoleMember

// ParseRole maps a role name of config.Roles (checked by config) to its rights.
func ParseRole(s string) (Roles, bool) {
	switch s {
	case config.RoleRead:
		return RoleRead, true
	case config.RoleWrite:
		return RoleWrite | RoleRead, true // WRITE implies READ
	case config.RoleMember:
		return RoleMember, true
	case config.RoleAdmin:
		return RoleAll | RoleAdmin, true
	case config.RoleMonitor:
		return RoleRead, true
	}
	return 0, false
}

// UserRoles is the union of the rights of a configured user's roles.
func UserRoles(names []string) Roles {
	var r Roles
	for _, n := range names {
		rs, _ := ParseRole(n)
		r |= rs
	}
	return r
}
