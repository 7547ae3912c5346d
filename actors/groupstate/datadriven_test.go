package groupstate

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var rewrite = flag.Bool("rewrite", false, "rewrite expected output of testdata/*.txt scenarios")

// TestScenarios runs the datadriven scenario files in testdata/*.txt. Each case is a command
// line, a "----" line, and the expected output up to the next blank line. Lines starting with
// '#' between cases are comments. Run with -rewrite to refresh expected output.
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no scenario files")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runScenario(t, f) })
	}
}

func runScenario(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out strings.Builder
	sc := &scenario{t: t}
	for i := 0; i < len(lines); {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			i++
			continue
		}
		cmd, lineNo := line, i+1
		i++
		if i >= len(lines) || lines[i] != "----" {
			t.Fatalf("%s:%d: expected ---- after command", path, lineNo)
		}
		i++
		var want []string
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			want = append(want, lines[i])
			i++
		}
		got := strings.TrimRight(sc.run(cmd), "\n")
		out.WriteString(cmd + "\n----\n" + got + "\n")
		if !*rewrite && got != strings.Join(want, "\n") {
			t.Errorf("%s:%d: %s\n--- want:\n%s\n--- got:\n%s", path, lineNo, cmd, strings.Join(want, "\n"), got)
		}
	}
	if *rewrite {
		s := strings.TrimRight(out.String(), "\n") + "\n"
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type scenario struct {
	t   *testing.T
	h   *harness
	cfg Config
}

func (sc *scenario) run(line string) string {
	f := strings.Fields(line)
	cmd, args := f[0], map[string]string{}
	var pos []string
	for _, a := range f[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			args[k] = v
		} else {
			pos = append(pos, a)
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
	if cmd != "new" && sc.h == nil {
		sc.t.Fatalf("%s: run 'new' first", line)
	}
	switch cmd {
	case "new":
		sc.cfg = Config{HeartbeatInterval: 3 * time.Second, LeaseTTL: dur("ttl", 15*time.Second),
			RebalanceTimeout: dur("rebalance", 60*time.Second), Retention: dur("retention", time.Minute)}
		sc.h = &harness{tb: sc.t, g: New(sc.cfg, "orders", "workers", int(num("shards", 4)), num("mv", 0)), now: t0}
		return table(sc.h.g)
	case "heartbeat", "leave":
		hb := Heartbeat{ProtocolVersion: int(num("proto", 1)), RequestID: "req", MemberID: pos[0],
			PathMemberID: pos[0], MemberName: args["name"], MemberEpoch: num("epoch", 0),
			MetadataVersion: num("mv", 0), Capacity: Capacity{4, 4}}
		if p, ok := args["path"]; ok {
			hb.PathMemberID = p
		}
		if cmd == "leave" {
			hb.MemberEpoch = -1
		}
		hb.Owned = parseInts(sc.t, args["owned"])
		for _, e := range splitList(args["revoking"]) {
			s, st, _ := strings.Cut(e, ":")
			n, err := strconv.Atoi(s)
			if err != nil {
				sc.t.Fatalf("%s: %v", line, err)
			}
			hb.Revoking = append(hb.Revoking, RevokingShard{Shard: n, State: RevokeState(st)})
		}
		before := snap(sc.h.g)
		d := sc.h.g.Heartbeat(hb, sc.h.now)
		if d.Change == nil && !equalSnap(before, snap(sc.h.g)) {
			sc.t.Fatalf("%s: rejected heartbeat changed the group", line)
		}
		sc.h.apply(d.Change)
		return fmtResp(d.Response) + "\n" + fmtChange(d.Change) + "\n" + table(sc.h.g)
	case "advance":
		sc.h.now = sc.h.now.Add(dur("by", 0) + parseDur(sc.t, pos))
		return fmt.Sprintf("now=+%s", sc.h.now.Sub(t0))
	case "tick":
		sc.h.now = sc.h.now.Add(parseDur(sc.t, pos))
		c := sc.h.g.Tick(sc.h.now)
		sc.h.apply(c)
		return fmt.Sprintf("now=+%s %s\n%s", sc.h.now.Sub(t0), fmtChange(c), table(sc.h.g))
	case "expire":
		c := sc.h.g.Expire(pos[0], sc.h.now)
		sc.h.apply(c)
		return fmtChange(c) + "\n" + table(sc.h.g)
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
		return fmt.Sprintf("now=+%s %s\n%s", sc.h.now.Sub(t0), fmtChange(c), table(sc.h.g))
	case "resize":
		c := sc.h.g.Resize(int(num("shards", 0)), num("mv", 0))
		sc.h.apply(c)
		return fmtChange(c) + "\n" + table(sc.h.g)
	case "restore":
		// Round-trip the durable records through JSON, as the shell would, and restore.
		mb, _ := json.Marshal(sc.h.g.Meta())
		ms, _ := json.Marshal(sc.h.g.Members())
		var meta Meta
		var members []Member
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
	}
	sc.t.Fatalf("unknown command %q", line)
	return ""
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
