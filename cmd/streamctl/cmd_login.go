package main

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/cmd/streamctl/internal/configfile"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (a *app) loginCmd() *cobra.Command {
	var passwordStdin bool
	c := cmd("login", "Log in (POST /coord/v1/auth/login) and store the token in the config file", noArgs,
		func(c *cobra.Command, _ []string) error {
			user, password := a.cfg.user, a.cfg.password
			if passwordStdin {
				line, err := bufio.NewReader(a.stdin).ReadString('\n')
				if err != nil && line == "" {
					return fmt.Errorf("reading the password from standard input: %w", err)
				}
				password = strings.TrimRight(line, "\r\n")
			}
			if user == "" || password == "" {
				return usagef("login needs a user and a password: --user U and --password P (or --password-stdin), or STREAMCTL_USER / STREAMCTL_PASSWORD")
			}
			if a.cfg.ignoredRSCConfig != "" {
				fmt.Fprintf(a.stderr, "streamctl: note: RSC_CONFIG (%s) is the coordinator's config file; streamctl never uses it and stores its token in %s (choose with --config or STREAMCTL_CONFIG)\n",
					a.cfg.ignoredRSCConfig, a.cfg.path)
			}
			// Refused before logging in: a token that cannot be stored is of no use.
			if err := configfile.CheckWritable(a.cfg.path); err != nil {
				return err
			}
			a.c.token, a.c.user, a.c.password = "", "", ""
			var resp protocol.LoginResponse
			if _, err := a.c.send(c.Context(), http.MethodPost, "/coord/v1/auth/login",
				protocol.LoginRequest{Username: user, Password: password}, &resp); err != nil {
				return err
			}
			if err := configfile.SaveToken(a.cfg.path, a.cfg.url, resp.AccessToken, resp.ExpiresAt); err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(mustJSON(map[string]any{"url": a.cfg.url, "user": user, "roles": resp.Roles,
					"expiresAt": resp.ExpiresAt, "configFile": a.cfg.path}))
			}
			fmt.Fprintf(a.stdout, "Logged in to %s as %s (roles %s); the token expires at %s.\nSaved to %s.\n",
				a.cfg.url, user, strings.Join(resp.Roles, ", "), resp.ExpiresAt, a.cfg.path)
			return nil
		})
	c.Long = `Log in with a user and password and store the bearer token (with the URL)
in streamctl's config file (--config, STREAMCTL_CONFIG, or
~/.config/streamctl/config.yaml). A new file is created with mode 0600; an
existing one keeps its mode, its comments and its other keys. A file that
holds anything but streamctl's keys (url, user, password, token,
tokenExpiresAt), such as the coordinator's config, is never rewritten: login
refuses and says so. Later commands use the token unless credentials are
given by flags or the environment.`
	c.Example = `  streamctl --url https://rsc.example:8080 login --user ops --password-stdin < pw.txt`
	c.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password from standard input")
	return c
}

func (a *app) healthCmd() *cobra.Command {
	return cmd("health", "Readiness of the coordinator answering: exits 1 when it is DOWN", noArgs,
		func(c *cobra.Command, _ []string) error {
			// The readiness route says DOWN with 503 (health answers 200
			// whatever the status, for dashboards).
			var h protocol.HealthResponse
			raw, err := a.c.get(c.Context(), "/coord/v1/monitoring/ready", &h)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			kv := [][2]string{{"status", h.Status}, {"coordinator", h.CoordinatorID}, {"redis", h.Redis}, {"loop", h.Loop}}
			if h.Refusing != "" {
				kv = append(kv, [2]string{"refusing", h.Refusing})
			}
			if l := h.StateLost; l != nil {
				kv = append(kv, [2]string{"state lost", l.Reason}, [2]string{"grants held until", l.GrantsHeldUntil})
				if l.Case != "" {
					kv = append(kv, [2]string{"loss case", l.Case})
				}
			}
			if h.Cluster != nil {
				kv = append(kv, [2]string{"cluster", h.Cluster.Name + " (" + h.Cluster.Provider + ")"})
			}
			writeFields(a.stdout, kv)
			return nil
		})
}

func (a *app) debugCmd() *cobra.Command {
	c := cmd("debug [PREFIX GROUP]", "Live actor state on the node answering (JSON)", between(0, 2, "nothing, or PREFIX GROUP"),
		func(c *cobra.Command, args []string) error {
			path := "/debug/actors"
			switch len(args) {
			case 1:
				return usagef("debug wants nothing, or PREFIX GROUP")
			case 2:
				path = apiPath("/debug/streams", args[0], "groups", args[1])
			}
			raw, err := a.c.get(c.Context(), path, nil)
			if err != nil {
				return err
			}
			return a.printJSON(raw)
		})
	c.Long = "Live actor state (group actors, member actors, lease deadlines, epochs) on the node\nthat answers. Always JSON: the shape is for debugging and may change."
	return c
}
