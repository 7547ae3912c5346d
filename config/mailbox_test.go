package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateMailboxPrincipals(t *testing.T) {
	withAuth := func() Config {
		cfg := Default()
		withUsers(&cfg,
			User{Username: "writer", Password: "w", Roles: []string{"WRITE"}},
			User{Username: "alice", Password: "a", Roles: []string{"MEMBER"}},
			User{Username: "root", Password: "r", Roles: []string{"ADMIN"}})
		cfg.Mailbox.Enabled = true
		return cfg
	}
	cfg := withAuth()
	cfg.Mailbox.Principals = []string{"alice", "root"}
	require.NoError(t, cfg.Validate())

	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"not a user", func(c *Config) { c.Mailbox.Principals = []string{"bob"} }, `mailbox.principals[0] = "bob": is not a user of auth.users`},
		{"no member role", func(c *Config) { c.Mailbox.Principals = []string{"alice", "writer"} }, `mailbox.principals[1] = "writer": user has neither the MEMBER nor the ADMIN role`},
		{"dash with auth on", func(c *Config) { c.Mailbox.Principals = []string{"-"} }, `mailbox.principals[0] = "-": is not a user`},
		{"user named dash", func(c *Config) { c.Auth.Users[0].Username = "-" }, `auth.users[0].username = "-": is reserved`},
		{"a user without member auth", func(c *Config) {
			c.Auth.AuthenticateMemberAPI = false
			c.Mailbox.Principals = []string{"alice"}
		}, `mailbox.principals[0] = "alice": member authentication is off`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := withAuth()
			tc.change(&c)
			err := c.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	open := Default()
	open.Mailbox.Enabled = true
	open.Mailbox.Principals = []string{"-"}
	require.NoError(t, open.Validate(), "member authentication off: the principal is -")
}
