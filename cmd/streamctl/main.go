// Command streamctl is the operator CLI of the Redis Stream Coordinator. It
// speaks the coordinator's HTTP API and prints JSON.
//
//	streamctl [--url URL] [--user U --password P | --token T] COMMAND ARGS
//
//	health
//	stream create PREFIX [--shards N] [--reason TEXT]
//	groups
//	group PREFIX GROUP                 group state, epochs, summaries
//	members PREFIX GROUP
//	assignments PREFIX GROUP           target vs current, revocations, invariant violations
//	consumption PREFIX GROUP
//	routing PREFIX GROUP               producer routing table
//	group delete PREFIX GROUP [--force] [--reason TEXT]
//	debug [PREFIX GROUP]               live actor state on the node answering
//
// Environment: RSC_URL, RSC_USER, RSC_PASSWORD, RSC_TOKEN.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"strings"
	"time"
)

type cli struct {
	url, user, password, token string
	http                       *http.Client
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("streamctl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &cli{http: &http.Client{Timeout: 15 * time.Second}}
	fs.StringVar(&c.url, "url", envOr("RSC_URL", "http://127.0.0.1:8080"), "coordinator base URL")
	fs.StringVar(&c.user, "user", os.Getenv("RSC_USER"), "Basic Auth user")
	fs.StringVar(&c.password, "password", os.Getenv("RSC_PASSWORD"), "Basic Auth password")
	fs.StringVar(&c.token, "token", os.Getenv("RSC_TOKEN"), "bearer token from POST /coord/v1/auth/login")
	shards := fs.Int("shards", 0, "initial shard count for 'stream create' (0: server default)")
	reason := fs.String("reason", "", "reason recorded with an admin change")
	force := fs.Bool("force", false, "delete a group even with live members")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: streamctl [flags] health | stream create P | groups | group P G | group delete P G | members P G | assignments P G | consumption P G | routing P G | debug [P G]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(args)); err != nil {
		return 2
	}
	a := fs.Args()
	// Names may hold ':' , spaces or Unicode (e.g. "orders:v2"): escape each
	// as one path segment.
	for i := 1; i < len(a); i++ {
		a[i] = url.PathEscape(a[i])
	}
	var method, path string
	var body any
	by := requester()
	switch {
	case len(a) == 1 && a[0] == "health":
		// The readiness route: a DOWN coordinator exits non-zero (the
		// health route answers 200 whatever the status, for dashboards).
		method, path = "GET", "/coord/v1/monitoring/ready"
	case len(a) == 1 && a[0] == "groups":
		method, path = "GET", "/coord/v1/monitoring/groups"
	case len(a) == 3 && a[0] == "stream" && a[1] == "create":
		method, path = "POST", "/coord/v1/streams/"+a[2]
		req := map[string]any{"requestedBy": by, "reason": *reason}
		if *shards > 0 {
			req["initialShardCount"] = *shards
		}
		body = req
	case len(a) == 4 && a[0] == "group" && a[1] == "delete":
		method, path = "DELETE", "/coord/v1/streams/"+a[2]+"/groups/"+a[3]
		body = map[string]any{"requestedBy": by, "reason": *reason, "force": *force}
	case len(a) == 3 && a[0] == "group":
		method, path = "GET", "/coord/v1/monitoring/streams/"+a[1]+"/groups/"+a[2]
	case len(a) == 3 && (a[0] == "members" || a[0] == "assignments" || a[0] == "consumption" || a[0] == "migrations"):
		method, path = "GET", "/coord/v1/monitoring/streams/"+a[1]+"/groups/"+a[2]+"/"+a[0]
	case len(a) == 3 && a[0] == "routing":
		method, path = "GET", "/coord/v1/streams/"+a[1]+"/groups/"+a[2]+"/producer-routing"
	case len(a) == 1 && a[0] == "debug":
		method, path = "GET", "/debug/actors"
	case len(a) == 3 && a[0] == "debug":
		method, path = "GET", "/debug/streams/"+a[1]+"/groups/"+a[2]
	default:
		fs.Usage()
		return 2
	}
	status, out, err := c.do(method, path, body)
	if err != nil {
		fmt.Fprintf(stderr, "streamctl: %s %s: %v\n", method, path, err)
		return 1
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, out, "", "  ") == nil {
		out = pretty.Bytes()
	}
	if status/100 != 2 {
		fmt.Fprintf(stderr, "streamctl: %s %s: HTTP %d\n%s\n", method, path, status, out)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", out)
	return 0
}

func (c *cli) do(method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, strings.TrimRight(c.url, "/")+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case c.token != "":
		req.Header.Set("Authorization", "Bearer "+c.token)
	case c.user != "":
		req.SetBasicAuth(c.user, c.password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, b, err
}

// reorder moves flags before positional arguments so that
// "stream create orders --shards 8" works like "--shards 8 stream create orders".
func reorder(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && a != "--force" && a != "-force" && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}

func requester() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "streamctl:" + u.Username
	}
	return "streamctl"
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
