package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/cmd/streamctl/internal/configfile"
)

// app is one invocation: its streams, flags and resolved client.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	flags struct {
		url, user, password, token string
		output, config             string
		requestedBy                string
		timeout                    time.Duration
		caFile                     string
	}
	cfg *settings
	c   *client

	// args are the command line (to tell a negative number from a flag).
	args []string
	// interactive overrides the terminal check of standard input (tests).
	interactive func() bool
}

const defaultURL = "http://127.0.0.1:8080"

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "streamctl",
		Short: "Operate a Redis Stream Coordinator",
		Long: `streamctl speaks the Redis Stream Coordinator's HTTP API.

Connection and credentials, highest first: flags; the environment
(STREAMCTL_URL, STREAMCTL_USER, STREAMCTL_PASSWORD, STREAMCTL_TOKEN); the
config file (--config, STREAMCTL_CONFIG, or ~/.config/streamctl/config.yaml,
where 'streamctl login' stores a token). Credentials are taken from the
highest of these that sets any; within it a token wins over a user and
password.

streamctl and the coordinator share no file and no variable: RSC_CONFIG (the
coordinator's config file) is never read or written by streamctl, and login
refuses to rewrite a file that is not streamctl's. RSC_URL, RSC_USER,
RSC_PASSWORD and RSC_TOKEN are still read for one release, with a warning.

Output: human tables by default; -o json prints the API's JSON unchanged.
Exit codes: 0 ok, 1 failure, 2 usage, 3 not found.`,
		Version:           version,
		SilenceErrors:     true,
		SilenceUsage:      true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return a.resolve(cmd) },
		RunE:              func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.url, "url", "", "coordinator base URL (env STREAMCTL_URL; default "+defaultURL+")")
	pf.StringVar(&a.flags.user, "user", "", "Basic Auth user (env STREAMCTL_USER)")
	pf.StringVar(&a.flags.password, "password", "", "Basic Auth password (env STREAMCTL_PASSWORD)")
	pf.StringVar(&a.flags.token, "token", "", "bearer token from 'streamctl login' or POST /coord/v1/auth/login (env STREAMCTL_TOKEN)")
	pf.StringVarP(&a.flags.output, "output", "o", "table", "output format: table or json")
	pf.StringVar(&a.flags.config, "config", "", "streamctl's config file (env STREAMCTL_CONFIG; default "+configfile.DefaultHint+")")
	pf.StringVar(&a.flags.requestedBy, "requested-by", requester(), "who asks, recorded with admin changes")
	pf.DurationVar(&a.flags.timeout, "timeout", 15*time.Second, "timeout of each HTTP request")
	pf.StringVar(&a.flags.caFile, "ca-file", "", "PEM file of the CA that signed the coordinator's HTTPS certificate (env STREAMCTL_CA_FILE; default: the system's CAs)")

	root.AddCommand(
		a.loginCmd(), a.healthCmd(),
		a.streamsCmd(), a.groupsCmd(),
		a.membersCmd(), a.assignmentsCmd(), a.consumptionCmd(), a.offsetsCmd(), a.messagesCmd(),
		a.scaleCmd(), a.migrationsCmd(), a.migrationCmd(), a.rollbackCmd(),
		a.watchCmd(), a.routingCmd(), a.debugCmd(), a.usersCmd(),
	)
	return root
}

// resolve applies flags > environment > config file > defaults and builds
// the client.
func (a *app) resolve(cmd *cobra.Command) error {
	switch a.flags.output {
	case "table", "json":
	default:
		return usagef("--output %q: use table or json", a.flags.output)
	}
	s, err := loadSettings(a.flags.config, os.Getenv)
	if err != nil {
		return &runError{err: err}
	}
	for _, w := range s.warnings {
		fmt.Fprintf(a.stderr, "streamctl: warning: %s\n", w)
	}
	f := cmd.Flags()
	flag := func(name, v string) (string, bool) { return v, f.Changed(name) }
	s.apply(flag("url", a.flags.url))
	s.applyCreds(layerFlag, credFields{
		user: a.flags.user, password: a.flags.password, token: a.flags.token,
		hasUser: f.Changed("user"), hasPassword: f.Changed("password"), hasToken: f.Changed("token"),
	})
	if s.url == "" {
		s.url = defaultURL
	}
	a.cfg = s
	caFile := a.flags.caFile
	if !f.Changed("ca-file") {
		caFile = os.Getenv(envCAFile)
	}
	hc, err := newHTTPClientCA(a.flags.timeout, caFile)
	if err != nil {
		return usagef("%v", err)
	}
	a.c = &client{base: s.url, http: hc}
	if s.useToken() {
		a.c.token = s.token
		if s.tokenLayer == layerFile {
			a.c.hint401 = "the token stored in " + s.path + " was refused (expired?): run 'streamctl login' again"
		}
	} else {
		a.c.user, a.c.password = s.user, s.password
	}
	return nil
}

// cmd builds a command whose RunE errors count as run failures (exit 1, or
// 3 for not found) rather than usage mistakes.
func cmd(use, short string, args cobra.PositionalArgs, run func(c *cobra.Command, args []string) error) *cobra.Command {
	return &cobra.Command{
		Use: use, Short: short, Args: args,
		RunE: func(c *cobra.Command, a []string) error {
			err := run(c, a)
			var ue *usageError
			if err == nil || errors.As(err, &ue) {
				return err
			}
			return &runError{err: err}
		},
	}
}

// group builds a parent command: alone it prints its help; with an unknown
// subcommand it is a usage error.
func group(use, short string, aliases ...string) *cobra.Command {
	return &cobra.Command{
		Use: use, Short: short, Aliases: aliases,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for %q", args[0], c.CommandPath())
			}
			return c.Help()
		},
	}
}

// exactly wants the named positional arguments.
func exactly(names ...string) cobra.PositionalArgs {
	return between(len(names), len(names), strings.Join(names, " "))
}

// between wants min..max positional arguments (max < 0: no upper bound).
func between(min, max int, want string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			name := strings.TrimPrefix(c.CommandPath(), "streamctl ")
			if want == "" {
				return usagef("%s takes no arguments, got %d", name, len(args))
			}
			return usagef("%s wants %s, got %d argument(s)", name, want, len(args))
		}
		return nil
	}
}

var noArgs = between(0, 0, "")

func (a *app) jsonOut() bool { return a.flags.output == "json" }

// printJSON writes the API's answer indented (unchanged otherwise, so
// fields this build does not know are kept).
func (a *app) printJSON(raw []byte) error {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		b.Reset()
		b.Write(raw)
	}
	b.WriteByte('\n')
	_, err := a.stdout.Write(b.Bytes())
	return err
}

// table writes rows under headers, aligned in columns.
func (a *app) table(headers []string, rows [][]string) {
	writeTable(a.stdout, headers, rows)
}

func writeTable(w io.Writer, headers []string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(headers, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	_ = tw.Flush()
}

// fields writes "name: value" lines, aligned.
func writeFields(w io.Writer, kv [][2]string) {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, p := range kv {
		fmt.Fprintf(tw, "%s:\t%s\n", p[0], p[1])
	}
	_ = tw.Flush()
}

func requester() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "streamctl:" + u.Username
	}
	return "streamctl"
}
