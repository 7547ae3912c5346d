package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// scaleFigures is one scale's convergence, each time from the scale request.
type scaleFigures struct {
	From, To int
	// TargetsMs: every group's view shows the new shard count and a target
	// assignment covering exactly that many shards.
	TargetsMs float64 `json:"targetsMs"`
	// OwnedMs: in every group every shard of the new set is owned by a member
	// (as the members' own responses tell them) and none beyond it.
	OwnedMs float64 `json:"ownedMs"`
	// DeprecatedMs: the migration reached DEPRECATED.
	DeprecatedMs float64 `json:"deprecatedMs"`
	// Steps: the migration's recorded state changes, ms from the request.
	Steps []step `json:"steps"`
}

type step struct {
	State string  `json:"state"`
	Ms    float64 `json:"ms"`
}

// reshard: -groups groups × -members members settle on -shards shards; the
// stream is scaled to -to and then back to -shards.
func reshard() (any, error) {
	deadline := time.Now().Add(*timeout)
	worlds := make([]*world, *groups)
	var all []*member
	for g := range worlds {
		worlds[g] = newWorld()
		for i := 0; i < *members; i++ {
			all = append(all, worlds[g].start(fmt.Sprintf("g%02d", g), fmt.Sprintf("m%02d-%02d", g, i)))
		}
	}
	defer func() {
		for _, m := range all {
			m.stop()
		}
	}()
	for _, w := range worlds {
		if err := w.waitSettled(deadline); err != nil {
			return nil, fmt.Errorf("reshard: before scaling: %w", err)
		}
	}
	out, err := scale(worlds, *shards, *to, deadline)
	if err != nil {
		return nil, err
	}
	in, err := scale(worlds, *to, *shards, deadline)
	if err != nil {
		return nil, err
	}
	return map[string]any{"groups": *groups, "membersPerGroup": *members, "scaleOut": out, "scaleIn": in}, nil
}

// scale posts one scale from → to and polls until the targets, the members'
// ownership and the migration have all arrived.
func scale(worlds []*world, from, to int, deadline time.Time) (*scaleFigures, error) {
	for _, w := range worlds {
		w.mu.Lock()
		w.nshards = to
		w.mu.Unlock()
	}
	body, _ := json.Marshal(map[string]any{"targetShardCount": to, "requestedBy": "sysbench", "reason": "convergence benchmark"})
	start := time.Now()
	resp, err := http.Post(*coord+"/coord/v1/streams/"+url.PathEscape(*stream)+"/scale", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	var sr protocol.ScaleResponse
	err = json.NewDecoder(resp.Body).Decode(&sr)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted || len(sr.Migrations) == 0 {
		return nil, fmt.Errorf("scale %d→%d: HTTP %d, %v, %+v", from, to, resp.StatusCode, err, sr)
	}
	id := sr.Migrations[0].ReshardingID
	f := &scaleFigures{From: from, To: to}
	ms := func() float64 { return float64(time.Since(start).Microseconds()) / 1000 }
	targets := make([]bool, len(worlds))
	var last protocol.Migration
	for f.TargetsMs == 0 || f.OwnedMs == 0 || f.DeprecatedMs == 0 {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("scale %d→%d: not converged (targets %.0f ms, owned %.0f ms, migration %s: %s)",
				from, to, f.TargetsMs, f.OwnedMs, last.State, last.Waiting)
		}
		if f.TargetsMs == 0 {
			done := true
			for g := range worlds {
				if !targets[g] {
					targets[g] = targetCovers(fmt.Sprintf("g%02d", g), to)
				}
				done = done && targets[g]
			}
			if done {
				f.TargetsMs = ms()
			}
		}
		if f.OwnedMs == 0 {
			done := true
			for _, w := range worlds {
				done = done && w.settled()
			}
			if done {
				f.OwnedMs = ms()
			}
		}
		if f.DeprecatedMs == 0 {
			if m, ok := migration(id); ok {
				last = m
				if m.State == protocol.MigrationDeprecated {
					f.DeprecatedMs = ms()
					for _, s := range m.History {
						if at, err := time.Parse(time.RFC3339Nano, s.At); err == nil {
							f.Steps = append(f.Steps, step{State: s.State, Ms: float64(at.Sub(start).Microseconds()) / 1000})
						}
					}
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return f, nil
}

// targetCovers reports whether group's view shows shard count n and a target
// assignment of n shards in all.
func targetCovers(group string, n int) bool {
	resp, err := http.Get(*coord + "/coord/v1/monitoring/streams/" + url.PathEscape(*stream) + "/groups/" + url.PathEscape(group))
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var g protocol.GroupResponse
	if json.NewDecoder(resp.Body).Decode(&g) != nil || g.ShardCount != n {
		return false
	}
	sum := 0
	for _, k := range g.TargetAssignmentSummary {
		sum += k
	}
	return sum == n
}

// migration reads migration id as group g00 sees it.
func migration(id string) (protocol.Migration, bool) {
	resp, err := http.Get(*coord + "/coord/v1/streams/" + url.PathEscape(*stream) + "/groups/g00/migrations/" + url.PathEscape(id))
	if err != nil {
		return protocol.Migration{}, false
	}
	defer resp.Body.Close()
	var m protocol.Migration
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&m) != nil {
		return protocol.Migration{}, false
	}
	return m, true
}
