package authz_test

import (
	"errors"
	"testing"

	"github.com/redisstream/coordinator/authz"
	"github.com/redisstream/coordinator/config"
)

func TestMayHeartbeat(t *testing.T) {
	member := authz.FromUser(config.User{Username: "alice", Roles: []string{config.RoleMember}, Streams: []string{"orders:*"}, Groups: []string{"billing"}})
	admin := authz.FromUser(config.User{Username: "root", Roles: []string{config.RoleAdmin}})
	reader := authz.FromUser(config.User{Username: "bob", Roles: []string{config.RoleRead, config.RoleWrite}})
	for _, tc := range []struct {
		name          string
		p             authz.Principal
		stream, group string
		want          string // "" = allowed
	}{
		{"in scope", member, "orders:eu", "billing", ""},
		{"stream out of scope", member, "payments", "billing", "user alice is scoped to streams [orders:*] (auth.users[].streams)"},
		{"group out of scope", member, "orders:eu", "shipping", "user alice is scoped to consumer groups [billing] (auth.users[].groups)"},
		{"admin holds MEMBER", admin, "any", "any", ""},
		{"no MEMBER role", reader, "orders", "billing", "this route needs the MEMBER role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.MayHeartbeat(tc.stream, tc.group)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want || !errors.Is(err, authz.ErrForbidden) {
				t.Fatalf("got %v, want %q (errors.Is ErrForbidden)", err, tc.want)
			}
		})
	}
}

func TestScopePatterns(t *testing.T) {
	if authz.NewScope([]string{"a", "*"}) != nil {
		t.Fatal(`a scope listing "*" must allow everything (nil)`)
	}
	s := authz.NewScope([]string{"billing-*", "ops"})
	for name, want := range map[string]bool{"billing-eu": true, "billing": false, "ops": true, "ops2": false} {
		if got := s.Allows(name); got != want {
			t.Errorf("Allows(%q) = %v, want %v", name, got, want)
		}
	}
}
