package groupstate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// FuzzRestore feeds arbitrary persisted records to Restore: it must never panic, and a group it
// accepts must have a consistent holder index and survive heartbeats and timers.
func FuzzRestore(f *testing.F) {
	h := stable2(f)
	h.send(hbFor("A", -1, nil, drain(0)...))
	seed, _ := json.Marshal(struct {
		Meta    model.Meta
		Members []model.Member
	}{h.g.Meta(), h.g.Members()})
	f.Add(seed)
	f.Add([]byte(`{"Meta":{"shardCount":3,"groupEpoch":2,"assignmentEpoch":1},"Members":[{"memberId":"a","state":"FENCED","memberEpoch":1,"assigned":[0,7]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var rec struct {
			Meta    model.Meta
			Members []model.Member
		}
		if json.Unmarshal(data, &rec) != nil {
			return
		}
		g, err := Restore(testCfg, rec.Meta, rec.Members, t0)
		if err != nil {
			return
		}
		check := func() {
			for _, v := range g.CheckInvariants() {
				if strings.Contains(v, "held by both") || strings.Contains(v, "holder index") || strings.Contains(v, "counters") {
					t.Fatalf("restored group inconsistent: %s", v)
				}
			}
		}
		check()
		for _, m := range g.Members() {
			d := g.Heartbeat(hbFor(m.ID, m.Epoch, m.Assigned), t0)
			g.Apply(d.Change)
			check()
		}
		g.Apply(g.Heartbeat(hbFor("new", 0, nil), t0).Change)
		check()
		g.Apply(g.Tick(t0.Add(testCfg.LeaseTTL)))
		check()
	})
}
