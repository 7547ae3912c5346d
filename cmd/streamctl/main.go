// Command streamctl is the operator CLI of the Redis Stream Coordinator. It
// speaks the coordinator's HTTP API and prints human tables (or the API's
// JSON with -o json).
//
//	streamctl [--url URL] [--user U --password P | --token T] [-o table|json] COMMAND ARGS
//
//	login                                     get a token, store it in the config file
//	health                                    readiness; exits 1 when the coordinator is DOWN
//	streams create|list|describe|delete       streams (list/describe derive from groups)
//	groups create|list|describe|delete        consumer groups
//	members | assignments | consumption | offsets PREFIX GROUP
//	messages PREFIX SHARD [--from ID] [--count N]
//	scale PREFIX COUNT                        start resharding
//	migrations PREFIX GROUP | migration PREFIX GROUP ID | rollback PREFIX GROUP ID
//	watch PREFIX GROUP                        live shard table, redrawn in place
//	routing PREFIX GROUP [KEY...]             routing table, or the shard of each key
//	debug [PREFIX GROUP]                      live actor state on the node answering
//
// Settings come from flags, then STREAMCTL_URL, STREAMCTL_USER,
// STREAMCTL_PASSWORD, STREAMCTL_TOKEN (the RSC_* names of earlier releases
// still work, with a warning), then the config file
// (~/.config/streamctl/config.yaml, or --config / STREAMCTL_CONFIG; never
// RSC_CONFIG, the coordinator's). Exit codes: 0 ok, 1 failure, 2 usage,
// 3 not found.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Exit codes scripts can rely on.
const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 2
	exitNotFound = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs streamctl with args and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, strings.NewReader(""), stdout, stderr)
}

func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runApp(ctx, &app{stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

func runApp(ctx context.Context, a *app, args []string) int {
	a.args = args
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	_, err := root.ExecuteContextC(ctx)
	return exitCode(err, a.stderr)
}

// usageError is a mistake in the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// runError wraps what a command's RunE returned, so that exitCode can tell
// it from cobra's own (usage) errors.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

// notFoundError is a not-found answer that did not come as an HTTP 404
// (exit 3).
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }

// exitCode prints err (if any) and maps it to an exit code: errors cobra
// raised (unknown command, bad flag, wrong arguments) and usageError are 2;
// an API 404 or notFoundError 3; anything else a command returned 1.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	var re *runError
	var ae *apiError
	var nf *notFoundError
	switch {
	case errors.As(err, &ue) || !errors.As(err, &re):
		fmt.Fprintf(stderr, "streamctl: %v\nRun 'streamctl --help' (or COMMAND --help) for usage.\n", err)
		return exitUsage
	case errors.As(err, &ae) && ae.Status == 404, errors.As(err, &nf):
		fmt.Fprintf(stderr, "streamctl: %v\n", err)
		return exitNotFound
	}
	fmt.Fprintf(stderr, "streamctl: %v\n", err)
	return exitFailure
}
