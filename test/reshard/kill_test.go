package reshard

import (
	"strings"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A coordinator is killed with kill -9 while a migration is in each of its
// non-terminal states (its failpoint keeps the migration there), and a
// second coordinator on the same Redis takes the migration over and
// finishes it: the final state and routing are right, the history shows
// the held state (driven by the first node) and the steps after it (by the
// second), and nothing Redis acknowledged is lost. The second node runs
// for more than a driver lease before the kill: while the first one holds
// the lease it must not drive (one driver at a time).
func TestCoordinatorKilledInEveryMigrationState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		hold     string
		from, to int
		rollback bool // roll the migration back first (it is held in ROLLING_BACK)
		final    string
	}{
		{protocol.MigrationPreparing, 3, 5, false, protocol.MigrationDeprecated},
		{protocol.MigrationActive, 4, 2, false, protocol.MigrationDeprecated},
		{protocol.MigrationDraining, 4, 2, false, protocol.MigrationDeprecated},
		{protocol.MigrationRollingBack, 4, 2, true, protocol.MigrationRolledBack},
	}
	for _, tc := range cases {
		t.Run(tc.hold, func(t *testing.T) {
			t.Parallel()
			extra := map[string]string{}
			if tc.rollback {
				// A grace long enough that the scale-in is still undone
				// (nothing retired) when the rollback arrives.
				extra["RSC_RESHARDING_ROUTING_GRACE"] = "6s"
			}
			e := newEnv(t, envOptions{Hold: tc.hold, Spare: true, Env: extra})
			e.api.createStream(t, tc.from)
			e.startMember("m0")
			e.startMember("m1")
			e.waitOwned(tc.from, 30*time.Second)
			mon := e.startMonitor()
			sdk := e.startSDKProducer(50)
			time.Sleep(500 * time.Millisecond)
			before := e.api.mustRouting(t)

			m := e.api.scale(t, tc.to)
			if tc.rollback {
				e.waitState(m.ReshardingID, 20*time.Second, protocol.MigrationActive, protocol.MigrationDraining)
				status, raw, rb, err := e.api.rollback(m.ReshardingID)
				if err != nil || status != 202 {
					t.Fatalf("rollback: status %d, err %v: %s", status, err, raw)
				}
				if rb.ReshardingID != m.ReshardingID || rb.RollbackRequestedBy != "test" {
					t.Errorf("rollback answered %s", describe(rb))
				}
			}
			held := e.waitState(m.ReshardingID, 20*time.Second, tc.hold)
			// The failpoint holds it: still there a few driver ticks later,
			// and the coordinator says a failpoint is on.
			time.Sleep(600 * time.Millisecond)
			if again, err := e.api.migration(m.ReshardingID); err != nil || again.State != tc.hold {
				t.Fatalf("the failpoint did not hold %s: now %s (%v)", tc.hold, describe(again), err)
			}
			if !strings.Contains(strings.ToLower(e.first().Logs()), "failpoint") {
				t.Errorf("the coordinator with RSC_FAILPOINT_RESHARD_HOLD=%s logged no failpoint warning", tc.hold)
			}
			// While a migration is not finished, another scale is refused.
			other := tc.to + 1
			status, raw, _, err := e.api.scaleRaw(protocol.ScaleRequest{TargetShardCount: &other, RequestedBy: "test"})
			if err != nil || status != 409 {
				t.Errorf("a second scale during %s: status %d, err %v, want 409: %s", tc.hold, status, err, raw)
			} else if b := errorBody(t, raw); b.ErrorCode != protocol.CodeMigrationActive {
				t.Errorf("a second scale during %s: errorCode %s, want %s", tc.hold, b.ErrorCode, protocol.CodeMigrationActive)
			}
			if tc.hold == protocol.MigrationPreparing {
				if r := e.api.mustRouting(t); r.MetadataVersion != before.MetadataVersion || r.ShardCount != tc.from {
					t.Errorf("PREPARING changed routing: %d shards at version %d, before %d at %d",
						r.ShardCount, r.MetadataVersion, before.ShardCount, before.MetadataVersion)
				}
			}

			if tc.hold == protocol.MigrationActive || tc.hold == protocol.MigrationDraining {
				// A scale-in is active: routing has left the removed shards,
				// which stay assigned (and consumed) until retired.
				if r := e.api.mustRouting(t); r.ShardCount != tc.to || r.MetadataVersion <= before.MetadataVersion {
					t.Errorf("%s: routing has %d shards at version %d, want %d above %d", tc.hold, r.ShardCount, r.MetadataVersion, tc.to, before.MetadataVersion)
				}
				e.waitOwned(tc.from, 10*time.Second)
			}
			e.StartSpare()
			time.Sleep(2500 * time.Millisecond) // more than resharding.driver-lease
			if again, err := e.api.migration(m.ReshardingID); err != nil || again.State != tc.hold {
				t.Errorf("with the holding node alive, the second node moved the migration on: %s (%v)", describe(again), err)
			}
			killed := time.Now()
			e.first().Kill()
			t.Logf("killed the coordinator holding %s in %s", m.ReshardingID, describe(held))
			done := e.waitState(m.ReshardingID, 45*time.Second, tc.final)
			for i, h := range done.History {
				switch {
				case i < len(held.History) && h.Node != nodeA:
					t.Errorf("step %d (%s) before the kill by %q, want %s", i, h.State, h.Node, nodeA)
				case i >= len(held.History) && h.Node != nodeB:
					t.Errorf("step %d (%s) after the kill by %q, want %s", i, h.State, h.Node, nodeB)
				}
			}
			t.Logf("%s after the kill: %s", time.Since(killed).Round(time.Millisecond), describe(done))

			wantCount := tc.to
			if tc.rollback {
				wantCount = tc.from
			}
			r := e.api.mustRouting(t)
			if r.ShardCount != wantCount || r.MetadataVersion <= before.MetadataVersion {
				t.Errorf("routing after %s: %d shards at version %d; want %d shards above version %d",
					tc.final, r.ShardCount, r.MetadataVersion, wantCount, before.MetadataVersion)
			}
			e.waitOwned(wantCount, 30*time.Second)
			time.Sleep(500 * time.Millisecond)
			e.checkDataPlane(sdk, nil, mon)

			states := []string{}
			for _, h := range done.History {
				states = append(states, h.State)
			}
			if !contains(states, tc.hold) {
				t.Errorf("history %v lacks the held state %s", states, tc.hold)
			}
			if !tc.rollback {
				e.checkHistory(done, tc.from, tc.to, tc.final)
				e.checkRetired(done, wantCount)
			}
			e.checkNoOrphans(wantCount, e.api.mustMigrations(t).Migrations)
		})
	}
}
