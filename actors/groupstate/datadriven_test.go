package groupstate

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// TestScenarios runs the scenario files in testdata/*.txt with github.com/cockroachdb/datadriven
// (the format etcd raft uses): each case is a command line, a "----" line and the expected output
// up to the next blank line; '#' lines are comments. Run with -rewrite to refresh expected output.
// Each file starts from no group; its first command must be 'new'.
func TestScenarios(t *testing.T) {
	t.Parallel() // the storms are heavy; each file has a group of its own
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no scenario files")
	}
	// Not datadriven.Walk: testdata/ also holds the fuzz corpus, which is not scenarios.
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			if strings.Contains(name, "_storm") {
				withoutRace(t) // 1,024-shard join storms
			}
			sc := &scenario{t: t}
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				sc.t = t
				return strings.TrimRight(sc.run(d), "\n")
			})
		})
	}
}

type scenario struct {
	t   *testing.T
	h   *harness
	cfg model.Config
	// seen[id] lists the member epochs a client with that id was given, oldest first (reset
	// by its joins): epoch=cur sends the last, epoch=prev the one before (a lost response).
	seen map[string][]int64
	// showFences (new fences=show): changes are printed with their fence moves.
	showFences bool
	// showNudges (new nudges=show): changes are printed with the members they nudge (Nudges).
	showNudges bool
}

// run executes one scenario command. Arguments are key=value (lists comma-separated, e.g.
// owned=0,1 revoking=2:DRAINING, inc=<incarnationId> principal=<caller>) or positional (a member id, a duration).
func (sc *scenario) run(d *datadriven.TestData) string {
	line, cmd, args := d.FullCmd(), d.Cmd, map[string]string{}
	var pos []string
	for _, a := range d.CmdArgs {
		if len(a.Vals) == 0 {
			pos = append(pos, a.Key)
		} else {
			args[a.Key] = strings.Join(a.Vals, ",")
		}
	}
	dur := func(k string, def time.Duration) time.Duration {
		if v, ok := args[k]; ok {
			d, err := time.ParseDuration(v)
			if err != nil {
				sc.t.Fatalf("%s: %v", line, err)
			}
			return d
		}
		return def
	}
	num := func(k string, def int64) int64 {
		if v, ok := args[k]; ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				sc.t.Fatalf("%s: %v", line, err)
			}
			return n
		}
		return def
	}
	if out, ok := sc.runAnswers(line, cmd, pos, args, num, dur); ok {
		return out
	}
	if cmd != "new" && sc.h == nil {
		sc.t.Fatalf("%s: run 'new' first", line)
	}
	if cmd != "new" {
		if out, ok := sc.runStorm(cmd, num); ok {
			return out
		}
		if out, ok := sc.runCapacity(cmd, args); ok {
			return out
		}
		if out, ok := sc.runPause(cmd, args); ok {
			return out
		}
	}
	switch cmd {
	case "new":
		sc.cfg = model.Config{HeartbeatInterval: 3 * time.Second, LeaseTTL: dur("ttl", 15*time.Second),
			RebalanceTimeout: dur("rebalance", 60*time.Second), Retention: dur("retention", time.Minute),
			MaxMembers: int(num("max-members", 0)), MaxRetained: int(num("max-retained", 0)),
			JoinRate: float64(num("join-rate", 0)), JoinBurst: int(num("join-burst", 0)),
			MaxMovesPerRound:     int(num("max-moves", 0)),
			StaticSessionTimeout: dur("static-session", 30*time.Second)}
		sc.h = &harness{tb: sc.t, g: New(sc.cfg, "orders", "workers", int(num("shards", 4)), num("mv", 0)), now: t0}
		sc.showFences = args["fences"] == "show"
		sc.showNudges = args["nudges"] == "show"
		if sc.h.g.Meta().ShardCount > 64 {
			return summary(sc.h.g) // a holder per shard would bury the point
		}
		return table(sc.h.g)
	case "heartbeat", "leave":
		seen := sc.seen[pos[0]]
		switch args["epoch"] {
		case "cur", "prev":
			back := 1
			if args["epoch"] == "prev" {
				back = 2
			}
			if len(seen) < back {
				sc.t.Fatalf("%s: %s was given fewer than %d epochs", line, pos[0], back)
			}
			args["epoch"] = strconv.FormatInt(seen[len(seen)-back], 10)
		}
		hb := sc.request(line, pos[0], args, num)
		if cmd == "leave" {
			hb.MemberEpoch = -1
		}
		before := snap(sc.h.g)
		d := sc.h.g.Heartbeat(hb, sc.h.now)
		if d.Change == nil && !equalSnap(before, snap(sc.h.g)) {
			sc.t.Fatalf("%s: rejected heartbeat changed the group", line)
		}
		nudges := sc.nudges(d.Change, hb.MemberID)
		sc.h.apply(d.Change)
		if cmd == "heartbeat" {
			switch r := d.Response; r.Status {
			case model.StatusOK, model.StatusSyncMetadata:
				if hb.MemberEpoch == 0 {
					seen = nil // an accepted join starts the client over; a refused one changes nothing
				}
				if r.MemberEpoch > 0 && (len(seen) == 0 || seen[len(seen)-1] != r.MemberEpoch) {
					seen = append(seen, r.MemberEpoch)
				}
			}
			if sc.seen == nil {
				sc.seen = map[string][]int64{}
			}
			sc.seen[pos[0]] = seen
		}
		return fmtResp(d.Response) + "\n" + sc.fmtChange(d.Change) + nudges + "\n" + table(sc.h.g)
	case "advance":
		sc.h.now = sc.h.now.Add(dur("by", 0) + parseDur(sc.t, pos))
		return fmt.Sprintf("now=+%s", sc.h.now.Sub(t0))
	case "tick":
		sc.h.now = sc.h.now.Add(parseDur(sc.t, pos))
		c := sc.h.g.Tick(sc.h.now)
		nudges := sc.nudges(c, "")
		sc.h.apply(c)
		return fmt.Sprintf("now=+%s %s%s\n%s", sc.h.now.Sub(t0), sc.fmtChange(c), nudges, table(sc.h.g))
	case "expire":
		c := sc.h.g.Expire(pos[0], sc.h.now)
		nudges := sc.nudges(c, "")
		sc.h.apply(c)
		return sc.fmtChange(c) + nudges + "\n" + table(sc.h.g)
	case "deadline":
		d, ok := sc.h.g.NextDeadline(pos[0])
		if !ok {
			return "none"
		}
		return fmt.Sprintf("+%s", d.Sub(t0))
	case "prune":
		sc.h.now = sc.h.now.Add(parseDur(sc.t, pos))
		c := sc.h.g.Prune(sc.h.now)
		sc.h.apply(c)
		return fmt.Sprintf("now=+%s %s\n%s", sc.h.now.Sub(t0), sc.fmtChange(c), table(sc.h.g))
	case "resize":
		c := sc.h.g.Resize(int(num("shards", 0)), num("mv", 0))
		nudges := sc.nudges(c, "")
		sc.h.apply(c)
		return sc.fmtChange(c) + nudges + "\n" + table(sc.h.g)
	case "restore":
		// Round-trip the durable records through JSON, as the shell would, and restore.
		mb, _ := json.Marshal(sc.h.g.Meta())
		ms, _ := json.Marshal(sc.h.g.Members())
		var meta model.Meta
		var members []model.Member
		if err := json.Unmarshal(mb, &meta); err != nil {
			sc.t.Fatal(err)
		}
		if err := json.Unmarshal(ms, &members); err != nil {
			sc.t.Fatal(err)
		}
		g, err := Restore(sc.cfg, meta, members, sc.h.now)
		if err != nil {
			return "error: " + err.Error()
		}
		sc.h.g = g
		sc.h.check()
		return table(g)
	case "state":
		return table(sc.h.g)
	case "flush":
		// The store lost everything and the stream was re-created: a fresh group.
		sc.h.g = New(sc.cfg, "orders", "workers", sc.h.g.Meta().ShardCount, 0)
		return table(sc.h.g)
	case "hold":
		sc.h.g.HoldGrantsUntil(sc.h.now.Add(dur("for", 0)))
		return fmt.Sprintf("grants held until +%s", sc.h.g.GrantsHeldUntil().Sub(t0))
	}
	sc.t.Fatalf("unknown command %q", line)
	return ""
}

// request builds the heartbeat of member id from a command's arguments: proto, epoch, mv, name,
// inc, principal, transport, path, cap (runtimeMaxConcurrency), owned=0,1 and revoking=2:DRAINING.
func (sc *scenario) request(line, id string, args map[string]string, num func(string, int64) int64) model.Heartbeat {
	hb := model.Heartbeat{ProtocolVersion: int(num("proto", 1)), RequestID: "req", MemberID: id,
		PathMemberID: id, MemberName: args["name"], MemberEpoch: num("epoch", 0),
		MetadataVersion: num("mv", 0), Capacity: sc.capacity(id, num), Incarnation: args["inc"], Principal: args["principal"],
		InstanceID: args["instance"], Transport: args["transport"]}
	if p, ok := args["path"]; ok {
		hb.PathMemberID = p
	}
	hb.Owned = parseInts(sc.t, args["owned"])
	for _, e := range splitList(args["revoking"]) {
		s, st, _ := strings.Cut(e, ":")
		n, err := strconv.Atoi(s)
		if err != nil {
			sc.t.Fatalf("%s: %v", line, err)
		}
		hb.Revoking = append(hb.Revoking, model.RevokingShard{Shard: n, State: model.RevokeState(st)})
	}
	return hb
}

func equalSnap(a, b snapshot) bool { return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b) }

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func parseInts(t *testing.T, s string) []int {
	var out []int
	for _, x := range splitList(s) {
		n, err := strconv.Atoi(x)
		if err != nil {
			t.Fatalf("bad int list %q: %v", s, err)
		}
		out = append(out, n)
	}
	return out
}

func parseDur(t *testing.T, pos []string) time.Duration {
	if len(pos) == 0 {
		return 0
	}
	d, err := time.ParseDuration(pos[0])
	if err != nil {
		t.Fatalf("bad duration %q: %v", pos[0], err)
	}
	return d
}
