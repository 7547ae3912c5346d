package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

const (
	streamPrefix = "orders"
	groupName    = "workers"
	shardCount   = 8
	publishRate  = 200 // messages per second
)

func main() {
	os.Exit(run())
}

func run() int {
	keep := flag.Bool("keep", false, "keep the temporary directory (binaries, logs, report) after the demo")
	transport := flag.String("transport", "http", "how the members heartbeat: http (the coordinator's HTTP API) or redis (the Redis mailbox, docs/PROTOCOL.md)")
	flag.Parse()
	if *transport != "http" && *transport != "redis" {
		fmt.Fprintf(os.Stderr, "demo: --transport %q is not http or redis\n", *transport)
		return 2
	}
	// SIGPIPE: a closed output pipe stops the demo like Ctrl-C instead of
	// killing it before it cleans up.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer stop()
	d, err := newDemo(ctx, *transport)
	code := 1
	if err == nil {
		code, err = d.script(ctx)
	}
	interrupted := ctx.Err() != nil
	if d != nil {
		d.close(interrupted)
	}
	switch {
	case interrupted:
		fmt.Fprintln(os.Stderr, "demo: interrupted; stopped every process")
		code = 130
	case err != nil:
		fmt.Fprintln(os.Stderr, "demo:", err)
	}
	if d != nil {
		d.cleanDir(*keep, code != 0 && !interrupted)
	}
	return code
}

// pause waits d or until the demo is interrupted (errInterrupted).
func (d *demo) pause(dur time.Duration) error {
	select {
	case <-d.ctx.Done():
		return errInterrupted
	case <-time.After(dur):
		return nil
	}
}

var errInterrupted = errors.New("demo: interrupted")

// cleanDir removes the temporary directory, or says where it is: with
// -keep everything stays; after a failure the logs stay (the binaries go).
func (d *demo) cleanDir(keep, failed bool) {
	switch {
	case keep:
		fmt.Fprintln(os.Stderr, "demo: binaries, logs and report kept in", d.dir)
	case failed:
		_ = os.RemoveAll(d.binDir())
		fmt.Fprintln(os.Stderr, "demo: logs kept in", d.dir, "(remove it when done)")
	default:
		if err := os.RemoveAll(d.dir); err != nil {
			fmt.Fprintln(os.Stderr, "demo: could not remove", d.dir+":", err)
			return
		}
		fmt.Fprintln(os.Stderr, "demo: removed", d.dir, "(run with -keep to keep its logs)")
	}
}

func (d *demo) script(ctx context.Context) (int, error) {
	say("Creating stream %q with %d shards", streamPrefix, shardCount)
	if err := d.createStream(); err != nil {
		return 1, err
	}
	for i := 0; i < 3; i++ {
		if err := d.startMember(fmt.Sprintf("member-%d", i)); err != nil {
			return 1, err
		}
	}
	say("Started 3 members (%s); producer publishing %d msg/s", d.transportSays(), publishRate)
	prod, err := d.startProducer()
	if err != nil {
		return 1, err
	}
	defer prod.Stop()
	go d.watch(ctx)

	if _, err := d.waitOwned(30*time.Second, nil); err != nil {
		return 1, err
	}
	say("All %d shards owned; running for 4s", shardCount)
	if err := d.pause(4 * time.Second); err != nil {
		return 1, err
	}

	victim := "member-1"
	say("Killing %s with SIGKILL (no goodbye: its shards move after its lease of %s)", victim, leaseTTL)
	killedAt := time.Now()
	d.kill(victim)
	reown, err := d.waitOwned(30*time.Second, map[string]bool{victim: true})
	if err != nil {
		return 1, err
	}
	d.reown = reown.Sub(killedAt)
	say("Every shard re-owned %.1fs after the kill", d.reown.Seconds())
	if err := d.pause(2 * time.Second); err != nil {
		return 1, err
	}

	say("Adding member-3")
	if err := d.startMember("member-3"); err != nil {
		return 1, err
	}
	if err := d.waitBalanced(30*time.Second, 3); err != nil {
		return 1, err
	}
	say("Balanced over 3 live members; running for 3s")
	if err := d.pause(3 * time.Second); err != nil {
		return 1, err
	}

	produced := prod.Stop()
	say("Producer stopped after %d messages; waiting until every one is processed", produced)
	d.waitProcessed(produced, 60*time.Second)
	if ctx.Err() != nil {
		return 1, errInterrupted
	}
	d.stopMembers()
	if _, err := d.rec.Settle(ctx, d.rdb, streamPrefix, groupName); err != nil {
		return 1, err
	}
	rep := d.rec.Check(produced)

	fmt.Println()
	fmt.Println("==================== summary ====================")
	fmt.Printf("messages produced          %d\n", rep.Produced)
	fmt.Printf("messages processed         %d\n", rep.Processed)
	fmt.Printf("lost                       %d\n", rep.Lost)
	fmt.Printf("duplicates (redeliveries)  %d\n", rep.Duplicates)
	fmt.Printf("shard hand-offs            %d\n", rep.HandOffs)
	fmt.Printf("two members on one shard   %d\n", len(rep.Overlaps))
	fmt.Printf("re-own after kill          %.1fs (lease %s)\n", d.reown.Seconds(), leaseTTL)
	fmt.Printf("member heartbeats          %s\n", d.transport)
	fmt.Println("=================================================")
	if b, err := json.Marshal(rep); err == nil {
		_ = os.WriteFile(d.dir+"/report.json", b, 0o644)
	}
	if rep.Lost > 0 || len(rep.Overlaps) > 0 {
		fmt.Printf("FAILED: lost %v, overlaps %v\n", rep.LostSeqs, rep.Overlaps)
		return 1, nil
	}
	fmt.Println("OK: nothing lost, no shard processed by two members at once")
	if rep.Duplicates > 0 {
		fmt.Printf("The %d redeliveries are at-least-once at work: a handler that writes an output would write those twice.\n", rep.Duplicates)
	}
	fmt.Println("Exactly-once: outputs committed with the acknowledgement, publishes written once —")
	fmt.Println("  go run ./membersdk/example -exactly-once -produce-rate 100   (prints its own count check)")
	fmt.Println("  docs/MEMBER-SDK.md, \"Exactly-once processing\" and \"Idempotent producer\"")
	return 0, nil
}

func say(format string, args ...any) {
	fmt.Printf("\n[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
