package groupstate

import "fmt"

// runStorm runs the scenario commands that drive many members at once, printing a summary
// instead of the whole group (a 1,024-shard table would bury the point):
//
//	settle [rounds=N]               heartbeat rounds until the group is stable (at most N, 100)
//	storm joiners=N [rounds=M]      N members join at once; rounds until STABLE (at most M, 200)
//	summary                         the group's epochs, live members and moves in flight
func (sc *scenario) runStorm(cmd string, num func(string, int64) int64) (string, bool) {
	switch cmd {
	case "settle":
		n := int(num("rounds", 100))
		for i := 0; i < n; i++ {
			if stable(sc.h.g) {
				return fmt.Sprintf("stable after %d rounds\n%s", i, summary(sc.h.g)), true
			}
			sc.h.now = sc.h.now.Add(sc.h.g.Config().HeartbeatInterval)
			sc.h.rounds(1)
			sc.noteEpochs()
		}
		return fmt.Sprintf("NOT stable after %d rounds\n%s", n, summary(sc.h.g)), true
	case "storm":
		st, ok := storm(sc.h, int(num("joiners", 1)), int(num("rounds", 200)))
		sc.noteEpochs()
		verdict := fmt.Sprintf("STABLE after %d rounds", st.rounds)
		if !ok {
			verdict = fmt.Sprintf("NOT STABLE after %d rounds", st.rounds-1)
		}
		return fmt.Sprintf("%s; most revoking at once %d, most unread at once %d\n%s",
			verdict, st.maxRevoking, st.maxUnread, summary(sc.h.g)), true
	case "summary":
		return summary(sc.h.g), true
	}
	return "", false
}

// summary: epochs, live members, and the shards revoking, unread (no member has them
// Assigned) and free (nobody holds them).
func summary(g *Group) string {
	mt := g.Meta()
	revoking, unread, free := 0, mt.ShardCount, 0
	for _, m := range g.Members() {
		if m.State.InTarget() {
			revoking += len(m.Revoking)
		}
		if m.State.Holds() {
			unread -= len(m.Assigned)
		}
	}
	for s := range mt.ShardCount {
		if _, ok := g.Holder(s); !ok {
			free++
		}
	}
	return fmt.Sprintf("group epoch=%d assignment=%d shards=%d live=%d revoking=%d unread=%d free=%d",
		mt.GroupEpoch, mt.AssignmentEpoch, mt.ShardCount, g.Live(), revoking, unread, free)
}

// noteEpochs records, after rounds the harness ran, the member epoch every live member was
// given, so that a later "heartbeat X epoch=cur" sends it.
func (sc *scenario) noteEpochs() {
	if sc.seen == nil {
		sc.seen = map[string][]int64{}
	}
	for _, m := range sc.h.g.Members() {
		if seen := sc.seen[m.ID]; m.State.InTarget() && (len(seen) == 0 || seen[len(seen)-1] != m.Epoch) {
			sc.seen[m.ID] = append(seen, m.Epoch)
		}
	}
}
