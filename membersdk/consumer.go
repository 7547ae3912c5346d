package membersdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync/atomic"
	"time"

	"github.com/redisstream/coordinator/membersdk/internal/coordclient"
	"github.com/redisstream/coordinator/membersdk/internal/hbtransport"
	"github.com/redisstream/coordinator/membersdk/internal/retry"
	"github.com/redisstream/coordinator/membersdk/internal/shard"
	"github.com/redisstream/coordinator/membersdk/internal/shardworker"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Handler processes one stream entry. Returning nil acknowledges the entry
// (XACK) if the shard is still owned; an error retries it with backoff, up to
// MaxDeliveries deliveries, then moves it to the dead-letter stream. ctx is
// cancelled when the member must stop at once (fenced, self-fenced, or a
// revocation that outlived rebalanceTimeoutMs): the result of the handler is
// then ignored and the entry stays pending for the next owner.
type Handler func(ctx context.Context, msg Message) error

// Message is one stream entry handed to a Handler.
type Message struct {
	StreamKey string
	Shard     int
	ID        string
	Values    map[string]any
	// Epoch is the member epoch at which the entry was read.
	Epoch int64
	// DeliveryCount counts deliveries so far, this one included: Redis'
	// delivery counter for entries claimed from a previous owner, plus local
	// retries.
	DeliveryCount int64
	// FencingToken is the shard fence's token this worker holds (0 when the
	// coordinator does not fence): it increases on every ownership change of
	// the shard, so a sink that stores the highest token seen per shard and
	// refuses writes with a lower one refuses a stale owner's side effects
	// (docs/MEMBER-SDK.md, "Fencing your own writes").
	FencingToken int64
	// Tx is this delivery's transaction when ConsumerConfig.Transactions is
	// enabled (nil otherwise): its writes commit with the entry's
	// acknowledgement, or not at all.
	Tx *Tx
}

// SourceID names the entry for an idempotent producer
// (Producer.PublishOnce): "<shard stream>/<entry id>", the same on every
// delivery to any member, so that an output published under it is written
// once however often the entry is processed.
func (m Message) SourceID() string { return m.StreamKey + "/" + m.ID }

// Consumer is one member of a consumer group: it heartbeats to the
// coordinator and reads the shards it is assigned. Create it with
// NewConsumer and call Run once.
type Consumer struct {
	cfg     ConsumerConfig
	handler Handler
	hb      hbtransport.Heartbeater // the transport (internal/hbtransport)
	log     *slog.Logger
	// clock is time.Now; internal tests may replace it (with gate.now)
	// right after NewConsumer. Not configurable: no test seam in the API.
	clock func() time.Time
	// cbCtx is the context of the shard callbacks (callbacks.go), set by Run.
	cbCtx context.Context
	// incarnation is this consumer's incarnationId, random per NewConsumer
	// (identity.go).
	incarnation string

	sem         chan struct{} // handler slots shared by all shards
	running     atomic.Int64  // handlers running now
	gate        shard.Gate    // self-fence state, shared by every ownership token
	epoch       atomic.Int64  // member epoch, for messages and events
	mv          atomic.Int64  // metadataVersion last adopted
	started     atomic.Bool
	exits       chan *shardworker.Worker // a worker has fully stopped
	unconfirmed shard.Unconfirmed
	fencedOps   atomic.Int64 // writes the shard fence refused (FencedWrites)
	namesGone   atomic.Int64 // dead consumer names deleted (ConsumerNamesDeleted)
	// beforeWrite, when set (tests only), runs after a write's in-process
	// ownership check and before the write is sent: op is "ack", "claim" or
	// "deadletter" ("dropnames" for dead consumer names). It makes the window a fence closes deterministic.
	beforeWrite func(op string, shard int)
	maxAckDelay time.Duration     // see shardworker; a field so tests can hold acks back
	host        *shardworker.Host // what workers need of the consumer, built by Run

	ls loopState // owned by the Run goroutine
}

// loopState is the member's protocol state; only the Run goroutine touches it.
type loopState struct {
	epoch           int64
	metadataVersion int64
	interval        time.Duration
	roundBound      time.Duration // longest interval told: bounds a heartbeat round (send)
	rebalance       time.Duration
	lease           time.Duration
	workers         map[int]*shardworker.Worker
	lastOK          time.Time // send time of the last heartbeat that proved membership
	haveOK          bool
	selfFenced      bool
	rejoin          bool // fenced: join with epoch 0 once every worker has stopped
	joined          bool
	sentAny         bool
	assigned        []int
	pending         []int
	warnedInterval  bool
	warnedPool      bool
	failing         bool         // the last heartbeat got no answer, or RETRY
	hbRetry         *retry.Pacer // paces heartbeat retries (see retryInterval)
	idRefused       bool         // the member id is refused (identity.go): logged once until it is ours
}

// NewConsumer validates cfg, fills in defaults and returns a consumer that
// calls handler for every entry of the shards it owns.
func NewConsumer(cfg ConsumerConfig, handler Handler) (*Consumer, error) {
	if handler == nil {
		return nil, errors.New("membersdk: handler is required")
	}
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	c := &Consumer{
		cfg:     cfg,
		handler: handler,
		log:     cfg.Logger.With("memberId", cfg.MemberID, "stream", cfg.StreamPrefix, "group", cfg.ConsumerGroup),
		sem:     make(chan struct{}, cfg.Concurrency),
		exits:   make(chan *shardworker.Worker),

		maxAckDelay: shardworker.MaxAckDelay,
		incarnation: newIncarnation(),
		ls: loopState{
			interval:  DefaultHeartbeatInterval,
			rebalance: DefaultRebalanceTimeout,
			lease:     DefaultMemberLeaseTTL,
			workers:   map[int]*shardworker.Worker{},
		},
	}
	c.clock = time.Now
	c.gate.Now = time.Now
	if cfg.Transport == TransportRedis {
		c.hb = newMailboxHeartbeater(&c.cfg)
		return c, nil
	}
	cc, err := newCoordClient(cfg.CoordinatorURLs, cfg.HTTPClient, cfg.Auth, cfg.RequestTimeout)
	if err != nil {
		return nil, err
	}
	cc.OnFailover = func(from, to string) {
		c.log.Warn("coordinator failover", "from", from, "to", to)
		c.emit(Event{Type: EventFailover, URL: to})
	}
	c.hb = hbtransport.HTTP{CC: cc, Path: coordclient.HeartbeatPath(cfg.StreamPrefix, cfg.ConsumerGroup, cfg.MemberID)}
	return c, nil
}

// MemberID is the member id (and Redis consumer name) of this consumer.
func (c *Consumer) MemberID() string { return c.cfg.MemberID }

// FencedWrites counts acknowledgements, claims and dead-letter moves the
// shard fence in Redis refused (each reported as ACK_FENCED): the member
// tried to write for a shard that had already moved on. A non-zero value
// means pauses longer than the lease (GC, SIGSTOP, VM migration) happened;
// the entries were left for the real owner.
func (c *Consumer) FencedWrites() int64 { return c.fencedOps.Load() }

// Epoch is the member epoch last given by the coordinator (0 while joining).
func (c *Consumer) Epoch() int64 { return c.epoch.Load() }

// MetadataVersion is the routing metadata version the coordinator last gave
// the member. Feed it to Producer.ObserveMetadataVersion to refresh a
// producer's routing as soon as the shard set changes.
func (c *Consumer) MetadataVersion() int64 { return c.mv.Load() }

// Run heartbeats and consumes until ctx is cancelled, then leaves the group
// gracefully (drain in-flight work within rebalanceTimeoutMs, heartbeat with
// epoch -1 until everything is released) and returns nil. It returns an
// error without waiting for ctx when the coordinator refuses the member for
// good (UNSUPPORTED_PROTOCOL, INVALID_REQUEST, HTTP 401/403); every shard is
// stopped first. Run may be called once.
func (c *Consumer) Run(ctx context.Context) error {
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("membersdk: Consumer.Run called twice")
	}
	c.cbCtx = context.WithoutCancel(ctx)
	c.host = c.workerHost()
	hbCtx, hbCancel := context.WithCancel(c.cbCtx)
	defer hbCancel()
	defer c.hb.Close() // after the leave
	results := make(chan hbResult, 1)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()

	nextHB := c.now() // join at once
	inFlight, again := false, false
	for {
		now := c.now()
		if deadline, ok := c.selfFenceDeadline(); ok && !now.Before(deadline) {
			c.selfFence(now)
		}
		if !inFlight && !now.Before(nextHB) && c.canHeartbeat() {
			inFlight = true
			c.sendAsync(hbCtx, c.buildRequest(), results)
		}
		wait := time.Hour
		if !inFlight && c.canHeartbeat() {
			wait = min(wait, nextHB.Sub(now))
		}
		if deadline, ok := c.selfFenceDeadline(); ok {
			wait = min(wait, deadline.Sub(now))
		}
		timer.Reset(max(wait, 0))

		select {
		case <-ctx.Done():
			return c.leave(inFlight, results)
		case r := <-results:
			inFlight = false
			next, err := c.apply(r)
			if err != nil {
				c.stopAll()
				return err
			}
			nextHB = next
			if again && !c.ls.failing {
				nextHB = c.now()
			}
			again = false
		case w := <-c.exits:
			c.workerExited(w)
			switch {
			case c.ls.failing:
				// The coordinator is not answering: keep the retry pace.
			case inFlight:
				again = true // report the release right after the answer
			default:
				nextHB = c.now()
			}
		case <-c.hb.Nudges():
			// The coordinator asks for a heartbeat now (shards this member
			// may get were freed): send one, or right after the answer to
			// the one in flight (which may predate the change).
			if inFlight {
				again = true
			} else {
				nextHB = c.now()
			}
		case <-timer.C:
		}
	}
}

// canHeartbeat is false while a fenced member waits for its readers to stop
// before it rejoins owning nothing.
func (c *Consumer) canHeartbeat() bool {
	return !(c.ls.rejoin && len(c.ls.workers) > 0)
}

// selfFenceDeadline is when the member must stop reading if no heartbeat
// succeeds before; ok is false when there is nothing to stop.
func (c *Consumer) selfFenceDeadline() (time.Time, bool) {
	if !c.ls.haveOK || c.ls.selfFenced || !c.hasLiveWorkers() {
		return time.Time{}, false
	}
	return c.ls.lastOK.Add(c.cfg.selfFenceAfter(c.ls.lease)), true
}

func (c *Consumer) hasLiveWorkers() bool {
	for _, w := range c.ls.workers {
		if w.StateNow() != shardworker.StateKilled {
			return true
		}
	}
	return false
}

// selfFence stops reading and acking every shard at once.
func (c *Consumer) selfFence(now time.Time) {
	c.ls.selfFenced = true
	c.gate.Fenced.Store(true) // blocks every XACK from here on
	shards := c.ownedIndexes()
	for _, s := range shards {
		c.ls.workers[s].Kill()
	}
	c.log.Warn("self-fenced: no successful heartbeat within lease TTL minus margin; stopped reading and acking",
		"lastSuccess", c.ls.lastOK, "after", c.cfg.selfFenceAfter(c.ls.lease), "shards", shards)
	c.emit(Event{Type: EventSelfFenced, Shards: shards, Time: now})
}

// fence handles UNKNOWN_MEMBER_ID / FENCED_MEMBER_EPOCH: stop everything at
// once and rejoin with epoch 0 once the readers have stopped.
func (c *Consumer) fence(status protocol.Status, msg string) {
	shards := c.ownedIndexes()
	for _, s := range shards {
		c.ls.workers[s].Kill()
	}
	c.log.Warn("fenced by the coordinator; stopped every shard, rejoining", "status", status, "message", msg, "epoch", c.ls.epoch, "shards", shards)
	c.emit(Event{Type: EventFenced, Status: status, Shards: shards})
	c.ls.epoch = protocol.EpochJoin
	c.epoch.Store(protocol.EpochJoin)
	c.ls.rejoin = true
	c.ls.joined = false
	c.ls.selfFenced = false
	c.gate.Fenced.Store(false) // old tokens are lost; new workers need a new OK anyway
	c.ls.assigned, c.ls.pending = nil, nil
}

// stopAll stops every worker at once and waits until they have exited.
func (c *Consumer) stopAll() {
	for _, w := range c.ls.workers {
		w.Kill()
	}
	c.waitWorkers()
}

func (c *Consumer) waitWorkers() {
	for len(c.ls.workers) > 0 {
		c.workerExited(<-c.exits)
	}
}

func (c *Consumer) workerExited(w *shardworker.Worker) {
	if cur, ok := c.ls.workers[w.Shard()]; ok && cur == w {
		delete(c.ls.workers, w.Shard())
	}
	c.emit(Event{Type: EventShardReleased, Shard: w.Shard(), Err: w.Err()})
	c.shardsRevoked(w.Shard())
}

// reconcile applies an assignment: revoke running shards that are not in
// assigned, and (if startNew) start workers for assigned shards with none.
// A shard whose previous worker is still stopping is started by a later
// heartbeat, so there is never more than one reader per shard.
func (c *Consumer) reconcile(assigned []int, startNew bool) {
	want := make(map[int]bool, len(assigned))
	for _, s := range assigned {
		if s >= 0 {
			want[s] = true
		}
	}
	for _, s := range c.ownedIndexes() {
		w := c.ls.workers[s]
		if !want[s] && w.StateNow() == shardworker.StateRunning {
			c.log.Info("revoking shard", "shard", s, "rebalanceTimeout", c.ls.rebalance)
			w.Revoke(c.ls.rebalance)
			c.emit(Event{Type: EventShardRevoking, Shard: s})
		}
	}
	if !startNew {
		return
	}
	var starts []int
	for s := range want {
		if _, busy := c.ls.workers[s]; !busy {
			starts = append(starts, s)
		}
	}
	sort.Ints(starts)
	c.checkPoolSize(len(c.ls.workers) + len(starts))
	c.shardsAssigned(starts)
	for _, s := range starts {
		w := shardworker.New(c.host, s)
		c.ls.workers[s] = w
		c.log.Info("starting shard", "shard", s, "epoch", c.ls.epoch)
		go w.Run()
	}
}

// ownedIndexes lists the shards with a worker, sorted.
func (c *Consumer) ownedIndexes() []int {
	out := make([]int, 0, len(c.ls.workers))
	for s := range c.ls.workers {
		out = append(out, s)
	}
	sort.Ints(out)
	return out
}

func (c *Consumer) now() time.Time { return c.clock() }

func (c *Consumer) emit(e Event) {
	if c.cfg.OnEvent == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = c.now()
	}
	if e.MemberID == "" {
		e.MemberID = c.cfg.MemberID
	}
	if e.Epoch == 0 {
		e.Epoch = c.epoch.Load()
	}
	if !e.Type.aboutShard() {
		e.Shard = -1
	}
	c.cfg.OnEvent(e)
}

// errStopped wraps the reason Run gave up.
func errStopped(status protocol.Status, msg string) error {
	return fmt.Errorf("membersdk: coordinator answered %s: %s", status, msg)
}
