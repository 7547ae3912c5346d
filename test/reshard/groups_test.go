package reshard

import (
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/test/harness"
	"github.com/redisstream/coordinator/test/recorder"
)

// A stream with two consumer groups is scaled out and in: one migration
// per group with the same id, both groups get the new shards, a removed
// shard is retired only once both have drained it, and each group
// processes every entry Redis acknowledged.
func TestReshardTwoGroups(t *testing.T) {
	t.Parallel()
	const other = "billing"
	e := newEnv(t, envOptions{})
	e.api.createStream(t, 3)
	e.startMember("m0")
	recOther := recorder.New()
	harness.StartMember(t, recOther, harness.MemberOptions{ID: "b0", CoordinatorURLs: e.urls, RedisAddr: e.redis.Addr(),
		Stream: prefix, Group: other, Work: time.Millisecond})
	e.waitOwned(3, 30*time.Second)
	mon := e.startMonitor()
	sdk := e.startSDKProducer(60)
	time.Sleep(500 * time.Millisecond)

	for _, to := range []int{5, 2} {
		n := to
		status, raw, out, err := e.api.scaleRaw(protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: "test", Reason: "two groups"})
		if err != nil || status != 202 {
			t.Fatalf("scale to %d: %d %v: %s", to, status, err, raw)
		}
		m := scaleMigration(t, out, to)
		if !contains(out.AffectedConsumerGroups, other) || len(out.Migrations) != 2 {
			t.Errorf("scale to %d: groups %v, %d migrations; want both groups", to, out.AffectedConsumerGroups, len(out.Migrations))
		}
		e.waitState(m.ReshardingID, 45*time.Second, protocol.MigrationDeprecated)
		var theirs protocol.MigrationsResponse
		e.api.must(t, "GET", "/coord/v1/monitoring/streams/"+prefix+"/groups/"+other+"/migrations", nil, &theirs, 200)
		if len(theirs.Migrations) == 0 || theirs.Migrations[0].ReshardingID != m.ReshardingID || theirs.Migrations[0].State != protocol.MigrationDeprecated {
			t.Errorf("group %s does not show migration %s DEPRECATED: %+v", other, m.ReshardingID, theirs)
		}
		e.waitOwned(to, 30*time.Second)
	}
	time.Sleep(500 * time.Millisecond)
	produced := sdk.Stop()
	e.checkDataPlane(sdk, nil, mon)
	// The other group processed every entry too.
	if !waitFor(drainTimeout, func() bool { return int64(len(recOther.AckedSeqs())) >= produced }) {
		acked := recOther.AckedSeqs()
		var lost []int64
		for s := int64(1); s <= produced; s++ {
			if !acked[s] {
				lost = append(lost, s)
			}
		}
		t.Errorf("group %s never processed %d of %d entries, first %v", other, len(lost), produced, head64(lost, 20))
	}
}
