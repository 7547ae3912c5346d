package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

var (
	coord    = flag.String("url", "http://127.0.0.1:8080", "coordinator base URL")
	scenario = flag.String("scenario", "load", "load, handoff, failover or converge")
	stream   = flag.String("stream", "bench", "stream prefix (created by the caller)")
	groups   = flag.Int("groups", 10, "groups (load)")
	members  = flag.Int("members", 1000, "members in all (load) or in the group (converge)")
	shards   = flag.Int("shards", 64, "shards of the stream")
	conns    = flag.Int("conns", 64, "keep-alive connections (load)")
	rounds   = flag.Int("rounds", 3, "interleaved rounds per target (load)")
	window   = flag.Duration("window", 5*time.Second, "length of one round (load)")
	baseline = flag.String("baseline", "", "bare fiber baseline base URL (load)")
	caFile   = flag.String("ca-file", "", "PEM CA that signed the certificate of an https:// -url or -baseline")
	coordPID = flag.Int("coord-pid", 0, "coordinator process id (load)")
	basePID  = flag.Int("baseline-pid", 0, "baseline process id (load)")
	cycles   = flag.Int("cycles", 10, "hand-offs or crashes (handoff, failover)")
	timeout  = flag.Duration("timeout", 2*time.Minute, "give up after this long")
	to       = flag.Int("to", 128, "shard count to scale to (reshard)")
	// -transport redis: the event scenarios' members heartbeat through the Redis mailbox
	// (the coordinator must run with mailbox.enabled and no member authentication).
	transport = flag.String("transport", "http", "http or redis (handoff, failover, converge)")
	redisAddr = flag.String("redis", "127.0.0.1:6379", "Redis address (-transport redis)")
	group     = flag.String("group", "g", "group of the event scenarios")
)

func main() {
	flag.Parse()
	var out any
	var err error
	switch *scenario {
	case "load":
		out, err = load()
	case "handoff":
		out, err = handoff()
	case "failover":
		out, err = failover()
	case "converge":
		out, err = converge()
	case "reshard":
		out, err = reshard()
	default:
		err = fmt.Errorf("unknown scenario %q", *scenario)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "simmembers:", err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}

func hbPath(group, member string) string {
	return "/coord/v1/streams/" + url.PathEscape(*stream) + "/groups/" + url.PathEscape(group) + "/members/" + url.PathEscape(member) + "/heartbeat"
}

var reqSeq atomic.Int64

// state is what a simulated member knows.
type state struct {
	group, id string
	nudged    bool // -transport redis: a nudge arrived, heartbeat at once (mailbox.go)
	epoch     int64
	meta      int64
	owned     []int
}

func (s *state) request() []byte {
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "r-" + strconv.FormatInt(reqSeq.Add(1), 10),
		MemberID: s.id, MemberName: "sim", MemberEpoch: s.epoch, MetadataVersion: s.meta,
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4},
		OwnedShards:             protocol.ShardIDs(s.owned), RevokingShards: []protocol.RevokingShard{}}
	b, _ := json.Marshal(req)
	return b
}

// apply follows a response like the SDK; it returns the shards newly granted
// and whether the member released anything (and must heartbeat at once).
func (s *state) apply(r *protocol.HeartbeatResponse) (granted []int, released bool) {
	switch r.Status {
	case protocol.StatusOK, protocol.StatusRevokePending, protocol.StatusSyncMetadata:
		s.epoch, s.meta = r.MemberEpoch, r.MetadataVersion
		assigned := protocol.Indexes(r.Assignment.AssignedShards)
		var keep []int
		for _, sh := range s.owned {
			if slices.Contains(assigned, sh) {
				keep = append(keep, sh)
			} else {
				released = true
			}
		}
		if r.Status == protocol.StatusOK {
			for _, sh := range assigned {
				if !slices.Contains(keep, sh) {
					granted = append(granted, sh)
					keep = append(keep, sh)
				}
			}
		}
		sort.Ints(keep)
		s.owned = keep
	case protocol.StatusFencedMemberEpoch, protocol.StatusUnknownMemberID:
		s.epoch, s.owned = 0, nil
	}
	return granted, released
}

// ---- load ------------------------------------------------------------------

func parallel(all []*state, n int, f func(*state)) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(all) {
					return
				}
				f(all[i])
			}
		}()
	}
	wg.Wait()
}

// cpuSeconds is the user+system CPU time of process pid (Linux /proc).
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces) start after ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / clockTicks, nil
}

// clockTicks is USER_HZ, 100 on every Linux architecture Go runs on.
const clockTicks = 100
