package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// negativeNumber is an argument cobra would read as a shorthand flag
// ("-1" → flag '1').
var negativeNumber = regexp.MustCompile(`^-[0-9]+$`)

// scaleFlagError answers a negative COUNT about the shard count, not with
// cobra's "unknown shorthand flag: '1' in -1".
func (a *app) scaleFlagError(_ *cobra.Command, err error) error {
	for _, arg := range a.args {
		if arg == "--" {
			break
		}
		if negativeNumber.MatchString(arg) {
			return usagef("COUNT %s: the shard count must be 0 or more, got %s", arg, arg)
		}
	}
	return &usageError{msg: err.Error()}
}

// stdinIsTerminal reports whether standard input is an interactive terminal.
func (a *app) stdinIsTerminal() bool {
	if a.interactive != nil {
		return a.interactive()
	}
	f, ok := a.stdin.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// confirmDrain asks before a scale to 0 shards: from a terminal it reads
// y/N, without one it refuses and says to pass --yes.
func (a *app) confirmDrain(prefix string) error {
	if !a.stdinIsTerminal() {
		return usagef("scale %s 0 drains and retires every shard of the stream; no terminal to confirm on: add --yes to scale to 0", prefix)
	}
	fmt.Fprintf(a.stderr, "Scale %s to 0 shards? Producers can no longer write to it, and every shard is retired once its groups have consumed it. [y/N] ", prefix)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return fmt.Errorf("reading the confirmation: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return fmt.Errorf("not scaled: scale %s 0 was not confirmed (answer y, or pass --yes)", prefix)
}
