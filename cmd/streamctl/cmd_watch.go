package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (a *app) watchCmd() *cobra.Command {
	var interval time.Duration
	var count int
	c := cmd("watch PREFIX GROUP", "A live table of the group's shards and members, redrawn in place", exactly("PREFIX", "GROUP"),
		func(c *cobra.Command, args []string) error {
			if interval < 100*time.Millisecond {
				return usagef("--interval %s: must be at least 100ms", interval)
			}
			if count < 0 {
				return usagef("--count %d: must be ≥ 0 (0: until interrupted)", count)
			}
			return a.watch(c.Context(), args[0], args[1], interval, count, isTerminal(a.stdout))
		})
	c.Long = `Redraws, every --interval, the group's state and epochs, its active migration,
one row per shard (current and target owner, length, lag, pending, consumers)
and one per member (state, epoch, shards, lease countdown). On a terminal the
table is redrawn in place; otherwise frames are appended, separated by a line.
With -o json, one JSON object per frame and line. Stops on Ctrl-C, or after
--count frames. An error after the first frame is shown and watching goes on.`
	c.Flags().DurationVar(&interval, "interval", time.Second, "time between frames")
	c.Flags().IntVar(&count, "count", 0, "stop after this many frames (0: until interrupted)")
	return c
}

// frame is what one redraw shows.
type frame struct {
	At      string                   `json:"at"`
	Group   protocol.GroupResponse   `json:"group"`
	Offsets protocol.OffsetsResponse `json:"offsets"`
	Members protocol.MembersResponse `json:"members"`
	Error   string                   `json:"error,omitempty"`
}

func (a *app) watch(ctx context.Context, p, g string, interval time.Duration, count int, tty bool) error {
	var last frame
	for n := 0; count == 0 || n < count; n++ {
		if n > 0 {
			t := time.NewTimer(interval)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
		f, err := a.frame(ctx, p, g)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if n == 0 {
				return err
			}
			f = last
			f.At, f.Error = time.Now().UTC().Format(time.RFC3339), err.Error()
		} else {
			last = f
		}
		if a.jsonOut() {
			if err := json.NewEncoder(a.stdout).Encode(f); err != nil {
				return err
			}
			continue
		}
		var b bytes.Buffer
		renderFrame(&b, f, time.Now())
		if tty {
			// Home, each line cleared to its end, the rest of the screen cleared:
			// redrawn in place without flicker.
			out := "\x1b[H" + strings.ReplaceAll(b.String(), "\n", "\x1b[K\n") + "\x1b[J"
			_, _ = io.WriteString(a.stdout, out)
		} else {
			if n > 0 {
				fmt.Fprintln(a.stdout, "---")
			}
			_, _ = a.stdout.Write(b.Bytes())
		}
	}
	return nil
}

func (a *app) frame(ctx context.Context, p, g string) (frame, error) {
	f := frame{At: time.Now().UTC().Format(time.RFC3339)}
	if _, err := a.c.get(ctx, apiPath("/coord/v1/monitoring/streams", p, "groups", g), &f.Group); err != nil {
		return f, err
	}
	if _, err := a.c.get(ctx, apiPath("/coord/v1/streams", p, "groups", g, "/offsets"), &f.Offsets); err != nil {
		return f, err
	}
	if _, err := a.c.get(ctx, a.monPath(p, g, "members"), &f.Members); err != nil {
		return f, err
	}
	return f, nil
}

func renderFrame(w io.Writer, f frame, now time.Time) {
	gr := f.Group
	fmt.Fprintf(w, "%s/%s  %s  groupEpoch %d  assignmentEpoch %d  metadataVersion %d  shards %d  members %d   %s\n",
		gr.StreamPrefix, gr.ConsumerGroup, gr.State, gr.GroupEpoch, gr.AssignmentEpoch, gr.MetadataVersion, gr.ShardCount,
		len(f.Members.Members), now.Format("15:04:05"))
	if gr.ActiveMigration != nil {
		m := gr.ActiveMigration
		fmt.Fprintf(w, "migration %s: %d → %d %s", m.ReshardingID, m.FromShardCount, m.ToShardCount, m.State)
		if m.Waiting != "" {
			fmt.Fprintf(w, " (waiting for %s)", m.Waiting)
		}
		fmt.Fprintln(w)
	}
	if f.Error != "" {
		fmt.Fprintf(w, "error at %s (showing the last good frame): %s\n", f.At, f.Error)
	}
	fmt.Fprintln(w)
	writeTable(w, offsetHeaders, offsetRows(f.Offsets.Shards))
	fmt.Fprintln(w)
	writeTable(w, memberHeaders, memberRows(f.Members.Members, now))
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
