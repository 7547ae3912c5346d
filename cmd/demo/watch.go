package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (d *demo) createStream() error {
	n := shardCount
	body, _ := json.Marshal(protocol.CreateStreamRequest{InitialShardCount: &n, RequestedBy: "demo", Reason: "make demo"})
	resp, err := d.http.Post(d.coordURL+"/coord/v1/streams/"+streamPrefix, "application/json", strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 201 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("create stream: HTTP %d: %s", resp.StatusCode, b)
	}
	return nil
}

func (d *demo) assignments() (protocol.AssignmentsResponse, error) {
	var out protocol.AssignmentsResponse
	resp, err := d.http.Get(d.coordURL + "/coord/v1/monitoring/streams/" + streamPrefix + "/groups/" + groupName + "/assignments")
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("assignments: HTTP %d", resp.StatusCode)
	}
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

// table renders shard → current owner, and who waits for it.
func table(a protocol.AssignmentsResponse) string {
	owner := map[int]string{}
	for m, shards := range a.CurrentAssignments {
		for _, s := range shards {
			owner[s.ShardIndex] = m
		}
	}
	target := map[int]string{}
	for m, shards := range a.TargetAssignment {
		for _, s := range shards {
			target[s.ShardIndex] = m
		}
	}
	var b strings.Builder
	b.WriteString("  shard │ owner      │ moving to\n  ──────┼────────────┼───────────\n")
	for s := 0; s < shardCount; s++ {
		o, t := owner[s], target[s]
		if o == "" {
			o = "(none)"
		}
		move := ""
		if t != "" && t != owner[s] {
			move = "→ " + t
		}
		fmt.Fprintf(&b, "  %5d │ %-10s │ %s\n", s, o, move)
	}
	return b.String()
}

// watch prints the ownership table whenever it changes.
func (d *demo) watch(ctx context.Context) {
	last := ""
	for ctx.Err() == nil {
		if a, err := d.assignments(); err == nil {
			if t := table(a); t != last {
				fmt.Printf("[%s] ownership\n%s", time.Now().Format("15:04:05.0"), t)
				last = t
			}
		}
		_ = d.pause(250 * time.Millisecond)
	}
}

// waitOwned waits until every shard is owned by a member not in excluded.
func (d *demo) waitOwned(timeout time.Duration, excluded map[string]bool) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if a, err := d.assignments(); err == nil {
			owned := map[int]bool{}
			for m, shards := range a.CurrentAssignments {
				if excluded[m] {
					continue
				}
				for _, s := range shards {
					owned[s.ShardIndex] = true
				}
			}
			if len(owned) == shardCount {
				return time.Now(), nil
			}
		}
		if err := d.pause(100 * time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
	return time.Time{}, fmt.Errorf("shards not all owned within %s", timeout)
}

// waitBalanced waits until n members own every shard, evenly, with nothing in flight.
func (d *demo) waitBalanced(timeout time.Duration, n int) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if a, err := d.assignments(); err == nil && len(a.RevokeProgress) == 0 {
			var counts []int
			total := 0
			for m, shards := range a.CurrentAssignments {
				if len(a.TargetAssignment[m]) == 0 {
					continue
				}
				counts = append(counts, len(shards))
				total += len(shards)
			}
			sort.Ints(counts)
			if len(counts) == n && total == shardCount && counts[n-1]-counts[0] <= 1 {
				return nil
			}
		}
		if err := d.pause(100 * time.Millisecond); err != nil {
			return err
		}
	}
	return fmt.Errorf("group not balanced over %d members within %s", n, timeout)
}

// waitProcessed waits until every produced message was acknowledged.
func (d *demo) waitProcessed(produced int64, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if int64(len(d.rec.AckedSeqs())) >= produced {
			return
		}
		if d.pause(200*time.Millisecond) != nil {
			return
		}
	}
}
