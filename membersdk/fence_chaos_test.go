package membersdk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/stretchr/testify/require"
)

// ackRecord is one fenced acknowledgement a member sent: who, for which
// stream, with which token, when it was sent, and whether Redis applied it.
type ackRecord struct {
	member, stream string
	token          int64
	sent           time.Time
	applied        bool
	ids            []string
}

// ackRecorder is a go-redis hook recording the fenced acknowledgements a
// member sends: ack scripts, and FencedAcker transactions.
type ackRecorder struct {
	member string
	mu     *sync.Mutex
	out    *[]ackRecord
	// armed is, per stream, the fence token the member's FencedAcker last
	// read right after its WATCH: the token its next transaction is checked
	// against (it sends one only when that token is the one it holds).
	armed map[string]int64
}

func (r ackRecorder) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessPipelineHook records FencedAcker pipelines: [WATCH, HGET] (arming)
// and [MULTI, XACK, EXEC, WATCH, HGET] (an acknowledgement, re-arming).
func (r ackRecorder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		var xack, exec redis.Cmder
		var hget *redis.StringCmd
		for _, c := range cmds {
			switch strings.ToLower(c.Name()) {
			case "xack":
				xack = c
			case "exec":
				exec = c
			case "hget":
				hget, _ = c.(*redis.StringCmd)
			}
		}
		if hget == nil {
			return next(ctx, cmds)
		}
		stream, _, _ := strings.Cut(strings.TrimPrefix(fmt.Sprint(hget.Args()[1]), "{"), "}")
		sent := time.Now()
		err := next(ctx, cmds)
		r.mu.Lock()
		defer r.mu.Unlock()
		if xack != nil {
			a := xack.Args() // xack stream group id...
			rec := ackRecord{member: r.member, stream: fmt.Sprint(a[1]), token: r.armed[stream], sent: sent, applied: exec.Err() == nil}
			for _, id := range a[3:] {
				rec.ids = append(rec.ids, fmt.Sprint(id))
			}
			*r.out = append(*r.out, rec)
		}
		tok, _ := strconv.ParseInt(hget.Val(), 10, 64)
		r.armed[stream] = tok
		return err
	}
}
func (r ackRecorder) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !isAckScript(cmd) {
			return next(ctx, cmd)
		}
		sent := time.Now()
		err := next(ctx, cmd)
		// evalsha sha 2 stream fence member token group id...
		a := cmd.Args()
		tok, _ := strconv.ParseInt(fmt.Sprint(a[6]), 10, 64)
		rec := ackRecord{member: fmt.Sprint(a[5]), stream: fmt.Sprint(a[3]), token: tok, sent: sent, applied: err == nil}
		for _, id := range a[8:] {
			rec.ids = append(rec.ids, fmt.Sprint(id))
		}
		r.mu.Lock()
		*r.out = append(*r.out, rec)
		r.mu.Unlock()
		return err
	}
}

// Members are paused at random points between their in-process ownership
// check and their write while the coordinator expires them and moves shards.
// From the fence history the fake coordinator logged: every acknowledgement
// Redis applied was made with a token that named its member, and none was
// sent after that token had been superseded. Every produced entry is
// acknowledged in the end.
func TestPausedMembersNeverAckWithoutTheFence(t *testing.T) {
	t.Parallel()
	const shards = 3
	members := []string{"a", "b", "c"}
	base := setupRedis(t, shards)
	f := newFakeCoord(t, 1)
	f.interval = 50
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 13))
	var rngMu sync.Mutex
	randN := func(n int) int { rngMu.Lock(); defer rngMu.Unlock(); return rng.IntN(n) }
	shuffle := func() {
		for _, m := range members {
			f.setTarget(m)
		}
		for s := range shards {
			m := members[randN(len(members))]
			f.mu.Lock()
			f.target[m] = append(f.target[m], s)
			f.mu.Unlock()
		}
	}
	shuffle()

	var recMu sync.Mutex
	var recs []ackRecord
	var ev events
	var consumers []*Consumer
	var stops []func() error
	for _, m := range members {
		rc := redis.NewClient(base.Options())
		t.Cleanup(func() { _ = rc.Close() })
		rc.AddHook(ackRecorder{member: m, mu: &recMu, out: &recs, armed: map[string]int64{}})
		f.useRedis(base)
		cfg := testConfig(f, rc, m, &ev)
		cfg.BlockTimeout = 50 * time.Millisecond
		c, err := NewConsumer(cfg, func(ctx context.Context, msg Message) error { return nil })
		require.NoError(t, err)
		c.beforeWrite = func(op string, shard int) {
			if randN(4) == 0 {
				time.Sleep(time.Duration(randN(150)) * time.Millisecond) // paused right before the write
			}
		}
		consumers = append(consumers, c)
		stop, _ := runConsumer(t, c)
		stops = append(stops, stop)
	}

	stopProducing := backgroundProducer(t, base, shards)

	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(time.Duration(50+randN(150)) * time.Millisecond) // random gap between chaos steps, not a wait
		if randN(2) == 0 {
			m := members[randN(len(members))]
			f.expire(m) // its lease expired while it may be paused: fences cleared
		}
		shuffle()
	}
	for i, m := range members {
		f.setTarget(m, i)
	}
	produced := stopProducing()

	eventually(t, func() bool {
		for s := range shards {
			if pendingCount(t, base, s) != 0 {
				return false
			}
			n, err := base.XLen(context.Background(), protocol.StreamKey(testStream, s)).Result()
			require.NoError(t, err)
			info, err := base.XInfoGroups(context.Background(), protocol.StreamKey(testStream, s)).Result()
			require.NoError(t, err)
			if n > 0 && info[0].EntriesRead < n {
				return false
			}
		}
		return true
	}, 15*time.Second, "every entry read and acknowledged")

	// Stop the members first: an acknowledgement is recorded once its reply
	// is read, which may be just after Redis applied it.
	for _, stop := range stops {
		require.NoError(t, stop())
	}
	// Check every applied acknowledgement against the fence history.
	hist := f.fenceHistory()
	recMu.Lock()
	defer recMu.Unlock()
	applied, refused, refusedLate := 0, 0, 0
	acked := map[string]bool{}
	for _, r := range recs {
		var grant *fenceChange
		var next *fenceChange
		for i := range hist {
			h := &hist[i]
			if protocol.StreamKey(testStream, h.shard) != r.stream {
				continue
			}
			if h.token == r.token {
				grant = h
			} else if h.token > r.token && (next == nil || h.token < next.token) {
				next = h
			}
		}
		if !r.applied {
			refused++
			if next != nil && r.sent.After(next.at) {
				refusedLate++
			}
			continue
		}
		applied++
		require.NotNil(t, grant, "applied ack by %s on %s with token %d: no such fence grant", r.member, r.stream, r.token)
		require.Equal(t, r.member, grant.owner, "applied ack on %s with token %d: the fence named %q, not the sender", r.stream, r.token, grant.owner)
		if next != nil {
			require.False(t, r.sent.After(next.at), "ack by %s on %s sent after its token %d was superseded by %d (%s)", r.member, r.stream, r.token, next.token, next.owner)
		}
		for _, id := range r.ids {
			acked[r.stream+"/"+id] = true
		}
	}
	for k := range produced {
		require.True(t, acked[k], "entry %s never acknowledged", k)
	}
	var fencedWrites int64
	for _, c := range consumers {
		fencedWrites += c.FencedWrites()
	}
	t.Logf("%d entries, %d fence changes, %d applied acks, %d refused (%d sent after their token was superseded), %d fenced writes", len(produced), len(hist), applied, refused, refusedLate, fencedWrites)
	require.Positive(t, applied)
}
