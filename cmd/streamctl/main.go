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
