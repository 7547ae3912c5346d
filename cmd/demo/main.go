// Command demo shows the coordinator doing its job, end to end, on this
// machine only: a Redis (redis-server when on PATH, else an embedded one), a
// coordinator process, a stream of 8 shards, 3 member processes using the
// member SDK and a producer. It prints shard ownership as it changes, kills
// one member with SIGKILL (its shards move after its lease), adds another,
// and checks that every produced message was processed. Exit status 0 only if
// nothing was lost.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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
	d, err := newDemo()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		return 1
	}
	defer d.close()
	code, err := d.script(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		fmt.Fprintln(os.Stderr, "logs are in", d.dir)
		return 1
	}
	return code
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
	say("Started 3 members; producer publishing %d msg/s", publishRate)
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
	time.Sleep(4 * time.Second)

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
	time.Sleep(2 * time.Second)

	say("Adding member-3")
	if err := d.startMember("member-3"); err != nil {
		return 1, err
	}
	if err := d.waitBalanced(30*time.Second, 3); err != nil {
		return 1, err
	}
	say("Balanced over 3 live members; running for 3s")
	time.Sleep(3 * time.Second)

	produced := prod.Stop()
	say("Producer stopped after %d messages; waiting until every one is processed", produced)
	d.waitProcessed(produced, 60*time.Second)
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
	fmt.Println("=================================================")
	if b, err := json.Marshal(rep); err == nil {
		_ = os.WriteFile(d.dir+"/report.json", b, 0o644)
	}
	if rep.Lost > 0 || len(rep.Overlaps) > 0 {
		fmt.Printf("FAILED: lost %v, overlaps %v\n", rep.LostSeqs, rep.Overlaps)
		return 1, nil
	}
	fmt.Println("OK: nothing lost, no shard processed by two members at once")
	return 0, nil
}

func say(format string, args ...any) {
	fmt.Printf("\n[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
