package membersdk

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/redistest"
)

// replyDropper is a TCP proxy in front of Redis that can lose a reply: once
// armed, the first command that touches a dedup record is forwarded to Redis
// and the connection is closed before Redis' reply reaches the client (the
// command ran; the client cannot tell). With refuse set it closes every new
// connection at once (Redis unreachable, as far as the client can tell).
type replyDropper struct {
	ln      net.Listener
	target  string
	armed   atomic.Bool
	refuse  atomic.Bool
	dropped atomic.Int64
}

func startReplyDropper(t *testing.T, target string) *replyDropper {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	d := &replyDropper{ln: ln, target: target}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go d.serve(c)
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return d
}

func (d *replyDropper) addr() string { return d.ln.Addr().String() }

func (d *replyDropper) serve(c net.Conn) {
	defer c.Close()
	if d.refuse.Load() {
		return
	}
	up, err := net.Dial("tcp", d.target)
	if err != nil {
		return
	}
	defer up.Close()
	var drop atomic.Bool
	done := make(chan struct{})
	go func() { // server → client, unless this connection's reply is to be lost
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := up.Read(buf)
			if n > 0 {
				if drop.Load() {
					d.dropped.Add(1)
					_ = c.Close()
					return
				}
				if _, werr := c.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if bytes.Contains(buf[:n], []byte(":idmp:")) && d.armed.CompareAndSwap(true, false) {
				drop.Store(true)
			}
			if _, werr := up.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	_ = up.Close()
	<-done
}

// idemProducer is an idempotent producer of testStream (one shard,
// "orders:0") through rc.
func idemProducer(t *testing.T, url string, rc redis.UniversalClient, pid string, mod func(*ProducerConfig)) *Producer {
	cfg := ProducerConfig{CoordinatorURLs: []string{url}, StreamPrefix: testStream, ConsumerGroup: testGroup, Redis: rc,
		ProducerID: pid, ProducerClaimTTL: 300 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	p, err := NewProducer(cfg)
	require.NoError(t, err)
	return p
}

func oneShard(t *testing.T) (*redistest.Server, string) {
	rs := redistest.StartWithOptions(t, redistest.Options{Persist: true})
	require.NoError(t, rs.Client().XGroupCreateMkStream(context.Background(), "orders:0", testGroup, "0").Err())
	var fr fakeRouting
	fr.set(1, 1)
	return rs, fr.server(t).URL
}

func entries(t *testing.T, rc redis.Cmdable) []redis.XMessage {
	got, err := rc.XRange(context.Background(), "orders:0", "-", "+").Result()
	require.NoError(t, err)
	return got
}

// The same idempotent id twice: one entry; the second call says it was a
// duplicate and returns the first entry's id.
func TestPublishOnceWritesOnce(t *testing.T) {
	t.Parallel()
	rs, url := oneShard(t)
	p := idemProducer(t, url, rs.Client(), "p1", nil)
	ctx := context.Background()
	a, err := p.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
	require.NoError(t, err)
	require.False(t, a.Duplicate)
	b, err := p.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
	require.NoError(t, err)
	require.True(t, b.Duplicate)
	require.Equal(t, a.ID, b.ID)
	c, err := p.PublishOnce(ctx, "k", "order-2", map[string]any{"v": "2"})
	require.NoError(t, err)
	require.False(t, c.Duplicate)
	require.Len(t, entries(t, rs.Client()), 2)
	// Another producer id is another namespace of idempotent ids.
	q := idemProducer(t, url, rs.Client(), "p2", nil)
	d, err := q.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
	require.NoError(t, err)
	require.False(t, d.Duplicate)
	require.Len(t, entries(t, rs.Client()), 3)
	_, err = p.PublishOnce(ctx, "k", "", map[string]any{"v": "1"})
	require.Error(t, err)
	plain, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{url}, StreamPrefix: testStream, ConsumerGroup: testGroup, Redis: rs.Client()})
	require.NoError(t, err)
	_, err = plain.PublishOnce(ctx, "k", "x", map[string]any{"v": "1"})
	require.ErrorIs(t, err, ErrNotIdempotent)
}

// The reply of the publish is lost after Redis ran it: the producer retries
// with the same idempotent id and gets the entry that landed; one entry.
// Publish (an id of its own per call) is just as safe.
func TestIdempotentPublishSurvivesALostReply(t *testing.T) {
	t.Parallel()
	rs, url := oneShard(t)
	d := startReplyDropper(t, rs.Addr())
	rc := redis.NewClient(&redis.Options{Addr: d.addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rc.Close() })
	p := idemProducer(t, url, rc, "p1", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	warmUp(t, p)
	d.armed.Store(true)
	pub, err := p.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
	require.NoError(t, err)
	require.EqualValues(t, 1, d.dropped.Load(), "the first reply was lost")
	require.True(t, pub.Duplicate, "the retry found the entry the first attempt wrote")
	got := entries(t, rs.Client())
	require.Len(t, got, 2)
	require.Equal(t, got[1].ID, pub.ID)

	d.armed.Store(true)
	id, err := p.Publish(ctx, "k", map[string]any{"v": "2"})
	require.NoError(t, err)
	require.EqualValues(t, 2, d.dropped.Load())
	got = entries(t, rs.Client())
	require.Len(t, got, 3)
	require.Equal(t, got[2].ID, id)
}

// Redis stops while a publish is retried and comes back (same data): one
// entry.
func TestIdempotentPublishAcrossARedisRestart(t *testing.T) {
	t.Parallel()
	rs, url := oneShard(t)
	d := startReplyDropper(t, rs.Addr())
	rc := redis.NewClient(&redis.Options{Addr: d.addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = rc.Close() })
	p := idemProducer(t, url, rc, "p1", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := p.PublishOnce(ctx, "k", "warm-up", map[string]any{"v": "0"}) // claims the id
	require.NoError(t, err)
	d.armed.Store(true) // the command lands, the reply is lost, and Redis goes down
	go func() {
		for d.dropped.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		rs.Stop()
		time.Sleep(300 * time.Millisecond)
		rs.Restart()
	}()
	pub, err := p.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
	require.NoError(t, err)
	require.True(t, pub.Duplicate)
	require.Len(t, entries(t, rs.Client()), 2)
}

// A producer killed after its publish reached Redis but before the reply
// reached it, started again with the same ProducerID: the new process gets
// the id once the old claim expires, publishes the same idempotent id and
// gets the entry that landed. A second live producer with the id is
// refused meanwhile.
func TestRestartedProducerKeepsItsIdempotentIDs(t *testing.T) {
	t.Parallel()
	rs, url := oneShard(t)
	d := startReplyDropper(t, rs.Addr())
	rc := redis.NewClient(&redis.Options{Addr: d.addr(), MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = rc.Close() })
	old := idemProducer(t, url, rc, "p1", nil)
	warmUp(t, old)
	d.armed.Store(true)
	var once sync.Once
	go func() { // "killed": Redis is unreachable for it from the lost reply on
		for d.dropped.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		once.Do(func() { d.refuse.Store(true) })
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, err := old.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
	cancel()
	require.Error(t, err, "the old process never learns the outcome")
	require.Len(t, entries(t, rs.Client()), 2, "but the entry landed")

	restarted := idemProducer(t, url, rs.Client(), "p1", nil)
	ctx = context.Background()
	var pub Published
	require.Eventually(t, func() bool {
		pub, err = restarted.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
		if err != nil {
			require.ErrorIs(t, err, ErrProducerIDInUse)
			require.Contains(t, err.Error(), "own ProducerID")
		}
		return err == nil
	}, 5*time.Second, 50*time.Millisecond, "the restarted producer gets its id back")
	require.True(t, pub.Duplicate)
	require.Len(t, entries(t, rs.Client()), 2)

	twin := idemProducer(t, url, rs.Client(), "p1", nil)
	_, err = twin.PublishOnce(ctx, "k", "order-2", map[string]any{"v": "2"})
	require.ErrorIs(t, err, ErrProducerIDInUse, "two live producers with one id")
	require.NoError(t, restarted.Close(ctx))
	_, err = twin.PublishOnce(ctx, "k", "order-2", map[string]any{"v": "2"})
	require.NoError(t, err, "free once the other closed")
	require.Len(t, entries(t, rs.Client()), 3)
}

// A publish of unknown outcome, then a reshard: the retry of the same
// idempotent id goes to the shard the first attempt went to (its record is
// there), not where the new routing points; one entry.
func TestIdempotentRetryFollowsItsFirstShardAcrossAReshard(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	ctx := context.Background()
	for _, k := range []string{"orders:0", "orders:1", "orders:2", "orders:3"} {
		require.NoError(t, rs.Client().XGroupCreateMkStream(ctx, k, testGroup, "0").Err())
	}
	var fr fakeRouting
	fr.set(4, 1)
	srv := fr.server(t)
	d := startReplyDropper(t, rs.Addr())
	rc := redis.NewClient(&redis.Options{Addr: d.addr(), MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = rc.Close() })
	p := idemProducer(t, srv.URL, rc, "p1", nil)
	_, first, err := p.ShardFor(ctx, "order-123")
	require.NoError(t, err)
	warmUp(t, p)
	d.armed.Store(true)
	go func() {
		for d.dropped.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		d.refuse.Store(true)
	}()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = p.PublishOnce(short, "order-123", "order-123/1", map[string]any{"v": "1"})
	cancel()
	require.Error(t, err)
	fr.set(1, 2) // scaled in meanwhile: the key now routes elsewhere
	p.Invalidate()
	_, now, err := p.ShardFor(ctx, "order-123")
	require.NoError(t, err)
	require.NotEqual(t, first, now, "the test needs the key to move")
	d.refuse.Store(false)
	pub, err := p.PublishOnce(ctx, "order-123", "order-123/1", map[string]any{"v": "1"})
	require.NoError(t, err)
	require.True(t, pub.Duplicate)
	require.Equal(t, first, pub.StreamKey)
	var total int
	for _, k := range []string{"orders:0", "orders:1", "orders:2", "orders:3"} {
		n, err := rs.Client().XLen(ctx, k).Result()
		require.NoError(t, err)
		total += int(n)
	}
	require.Equal(t, 2, total, "the warm-up's and order-123/1's")
}

// warmUp publishes one entry through p, so that Redis has the dedup script
// cached: the reply a test loses is then the publish's, not a NOSCRIPT.
func warmUp(t *testing.T, p *Producer) {
	t.Helper()
	_, err := p.PublishOnce(context.Background(), "warm-up", "warm-up", map[string]any{"v": "0"})
	require.NoError(t, err)
}

// With WaitReplicas an idempotent publish not yet replicated is retried
// (safely: the record is found) until a replica has it; one entry.
func TestIdempotentPublishWaitsForAReplica(t *testing.T) {
	t.Parallel()
	primary, url := oneShard(t)
	p := idemProducer(t, url, primary.Client(), "p1", func(c *ProducerConfig) {
		c.WaitReplicas, c.WaitTimeout = 1, 50*time.Millisecond
	})
	ctx := context.Background()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err := p.PublishOnce(short, "k", "order-1", map[string]any{"v": "1"})
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded, "no replica: never confirmed")
	require.Contains(t, err.Error(), "not acknowledged by enough replicas")
	host, port, _ := strings.Cut(primary.Addr(), ":")
	replica := redistest.Start(t)
	require.NoError(t, replica.Client().SlaveOf(ctx, host, port).Err())
	long, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	pub, err := p.PublishOnce(long, "k", "order-1", map[string]any{"v": "1"})
	require.NoError(t, err)
	require.True(t, pub.Duplicate, "written by the first call, confirmed now")
	got, err := replica.Client().XRange(ctx, "orders:0", pub.ID, pub.ID).Result()
	require.NoError(t, err)
	require.Len(t, got, 1, "the replica has it")
	require.Len(t, entries(t, primary.Client()), 1)
}

// The cross-slot mode of exactly-once: a handler publishes its output
// through a producer shared by the pipeline's members, keyed by the input
// entry. Its member is frozen past its lease after publishing: the new
// owner processes the entry again, and its publish writes nothing new.
func TestPipelineOutputThroughASharedIdempotentProducerIsWrittenOnce(t *testing.T) {
	t.Parallel()
	outRoute := fakeRouting{stream: "results"}
	outRoute.set(1, 1)
	srv := outRoute.server(t)
	var h *handover
	producerFor := func(member string) *Producer {
		p, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{srv.URL}, StreamPrefix: "results", ConsumerGroup: testGroup,
			Redis: h.rc, ProducerID: "orders-to-results", SharedProducerID: true})
		require.NoError(t, err)
		return p
	}
	var published sync.Map // member → Published
	handler := func(member string) Handler {
		var p *Producer
		return func(ctx context.Context, m Message) error {
			if p == nil {
				p = producerFor(member)
			}
			pub, err := p.PublishOnce(ctx, "k", m.SourceID(), map[string]any{"from": m.ID})
			published.Store(member, pub)
			return err
		}
	}
	h = newHandover(t, "ack", handler("a"), nil)
	require.NoError(t, h.rc.XGroupCreateMkStream(context.Background(), "results:0", "downstream", "0").Err())
	h.start()
	xadd(t, h.rc, 0, "k", "v")
	h.freezeAndHandOver(handler("b"), nil)
	close(h.resume)
	close(h.bGo)
	eventually(t, func() bool { return h.ev.has(EventAcked, "b", 0) }, 5*time.Second, "b processed the entry")
	got, err := h.rc.XRange(context.Background(), "results:0", "-", "+").Result()
	require.NoError(t, err)
	require.Len(t, got, 1, "one output for one input, processed twice")
	a, _ := published.Load("a")
	b, _ := published.Load("b")
	require.False(t, a.(Published).Duplicate)
	require.True(t, b.(Published).Duplicate)
	require.Equal(t, a.(Published).ID, b.(Published).ID)
}

func TestHasIDMP(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{"7.0.15": false, "7.4.2": false, "8.4.0": false, "8.6.0": true, "8.6": true, "8.10.1": true, "9.0.0": true, "": false, "x.y": false} {
		require.Equal(t, want, hasIDMP(v), v)
	}
}

// EnvIDMPServer names a redis-server of version 8.6 or later, whose XADD
// IDMP the idempotent producer uses instead of its dedup script.
const EnvIDMPServer = "RSC_TEST_REDIS_IDMP_SERVER"

// idmpServer starts a Redis that has XADD IDMP: the binary EnvIDMPServer
// names, or redis-server on PATH if it is 8.6 or later; the test is skipped
// otherwise, saying how to run it.
func idmpServer(t *testing.T) *redistest.Server {
	bin := os.Getenv(EnvIDMPServer)
	if bin == "" {
		path, err := exec.LookPath("redis-server")
		if err == nil {
			out, _ := exec.Command(path, "--version").Output()
			if m := regexp.MustCompile(`v=(\d+\.\d+)`).FindSubmatch(out); m != nil && hasIDMP(string(m[1])) {
				bin = path
			}
		}
	}
	if bin == "" {
		t.Skipf("no Redis with XADD IDMP (8.6 or later) here: the dedup script's tests cover the contract; set %s to a redis-server ≥ 8.6 to run this one", EnvIDMPServer)
	}
	return redistest.StartWithOptions(t, redistest.Options{Binary: bin})
}

// On Redis ≥ 8.6 the producer publishes with XADD IDMP, sets the stream's
// IDMP window once, and keeps the contract: a retry after a lost reply
// writes nothing new.
func TestIdempotentPublishUsesXAddIDMP(t *testing.T) {
	t.Parallel()
	rs := idmpServer(t)
	ctx := context.Background()
	require.NoError(t, rs.Client().XGroupCreateMkStream(ctx, "orders:0", testGroup, "0").Err())
	var fr fakeRouting
	fr.set(1, 1)
	url := fr.server(t).URL
	d := startReplyDropper(t, rs.Addr())
	rc := redis.NewClient(&redis.Options{Addr: d.addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rc.Close() })
	p := idemProducer(t, url, rc, "p1", func(c *ProducerConfig) { c.DedupWindow = 2 * time.Hour })
	a, err := p.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
	require.NoError(t, err)
	b, err := p.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
	require.NoError(t, err)
	require.Equal(t, a.ID, b.ID)
	info, err := rs.Client().XInfoStream(ctx, "orders:0").Result()
	require.NoError(t, err)
	require.EqualValues(t, 7200, info.IDMPDuration)
	require.EqualValues(t, idmpMaxSize, info.IDMPMaxSize)
	d.armed.Store(true)
	c, err := p.PublishOnce(ctx, "k", "order-2", map[string]any{"v": "2"})
	require.NoError(t, err)
	require.EqualValues(t, 1, d.dropped.Load())
	got := entries(t, rs.Client())
	require.Len(t, got, 2)
	require.Equal(t, got[1].ID, c.ID)
	require.Zero(t, rs.Client().Exists(ctx, "{orders:0}:idmp:p1:"+strconv.FormatInt(time.Now().UnixMilli()/(2*time.Hour).Milliseconds(), 10)).Val(),
		"no dedup record: Redis keeps the ids")
}

// giveUpHook runs the first dedup script call it sees once armed, then
// reports the caller's context as ended: the entry landed, the caller was
// not told.
type giveUpHook struct {
	armed  atomic.Bool
	cancel context.CancelFunc
}

func (h *giveUpHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *giveUpHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *giveUpHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if (cmd.Name() == "evalsha" || cmd.Name() == "eval") && h.armed.CompareAndSwap(true, false) {
			h.cancel()
			return context.Canceled
		}
		return err
	}
}

// A caller whose context ends while its publish is on the wire is told the
// outcome is unknown and that publishing again is safe; it is: the entry
// that landed is found, and the stream holds it once.
func TestIdempotentPublishGivenUpMidCallIsSafeToRepeat(t *testing.T) {
	t.Parallel()
	rs, url := oneShard(t)
	rc := redis.NewClient(&redis.Options{Addr: rs.Addr()})
	t.Cleanup(func() { _ = rc.Close() })
	h := &giveUpHook{}
	rc.AddHook(h)
	p := idemProducer(t, url, rc, "p1", nil)
	warmUp(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.armed.Store(true)
	_, err := p.PublishOnce(ctx, "k", "order-1", map[string]any{"v": "1"})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "publishing again with the same idempotent id is safe")
	require.Len(t, entries(t, rs.Client()), 2, "the entry landed")

	again, err := p.PublishOnce(context.Background(), "k", "order-1", map[string]any{"v": "1"})
	require.NoError(t, err)
	require.True(t, again.Duplicate)
	got := entries(t, rs.Client())
	require.Len(t, got, 2, "once")
	require.Equal(t, got[1].ID, again.ID)
}
