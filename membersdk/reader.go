package membersdk

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// blockingReader runs a shard worker's XREADGROUP … BLOCK on a connection of
// its own, so that a revoke, a fence or a shutdown can end a blocked read at
// once with CLIENT UNBLOCK instead of waiting out BlockTimeout.
//
// CLIENT UNBLOCK (default TIMEOUT mode) makes the blocked command return as
// if its BLOCK had expired: an empty reply, no entry delivered, nothing lost
// and the connection stays healthy and in use. Cancelling the command's
// context instead would not interrupt a read already sent, and closing the
// connection would drop a reply Redis may already have written (entries
// moved to this consumer's pending list that nothing would handle).
//
// The dedicated connection needs a *redis.Client (single node or one from
// Sentinel failover). With another UniversalClient (Cluster, Ring) reads
// go through the shared pool and a stopping reader waits out BlockTimeout,
// as it does when CLIENT ID is refused (e.g. by an ACL).
type blockingReader struct {
	mu   sync.Mutex // guards conn and ack; only the worker goroutine uses them
	conn *redis.Conn
	// ack acknowledges the worker's batches on conn (FencedAcker: a WATCH on
	// the shard fence stays on conn); nil until the first acknowledgement.
	ack *FencedAcker
	id  atomic.Int64 // CLIENT ID of conn; 0: none
	// noConn is set once dedicated connections turned out to be unavailable.
	noConn bool
	// released: the worker has exited; no connection is opened again.
	released bool
	// noTx: Redis refused the transaction commands (FencedAcker); acks go
	// through the fence script.
	noTx bool
}

// read is one XREADGROUP … > BLOCK BlockTimeout of the worker's shard.
func (r *blockingReader) read(w *worker) ([]redis.XStream, error) {
	ctx := context.WithoutCancel(w.readCtx) // see blockingReader: never abandon a reply
	var cmd redis.Cmdable = w.c.cfg.Redis
	if conn := r.connection(ctx, w); conn != nil {
		cmd = conn
	}
	w.inRead.Store(true)
	defer w.inRead.Store(false)
	if w.readCtx.Err() != nil {
		// Cancelled between the loop's check and here: the unblocker may
		// have seen inRead false and given up, so do not start to block.
		return nil, redis.Nil
	}
	res, err := cmd.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: w.c.cfg.ConsumerGroup, Consumer: w.c.cfg.MemberID,
		Streams: []string{w.key, ">"}, Count: w.c.cfg.BatchSize, Block: w.c.cfg.BlockTimeout,
	}).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		r.close() // a failed connection is replaced (and its CLIENT ID with it)
	}
	return res, err
}

// connection returns the dedicated connection, opening it if needed; nil
// means "use the shared pool".
func (r *blockingReader) connection(ctx context.Context, w *worker) *redis.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn != nil || r.noConn || r.released {
		return r.conn
	}
	rc, ok := w.c.cfg.Redis.(*redis.Client)
	if !ok {
		r.noConn = true
		return nil
	}
	conn := rc.Conn()
	id, err := conn.ClientID(ctx).Result()
	if err != nil {
		_ = conn.Close()
		if isRefused(err) {
			r.noConn = true
			w.c.log.Warn("CLIENT ID refused; a stopping shard reader will wait out BlockTimeout", "shard", w.shard, "error", err)
		}
		return nil // Redis unreachable: the read through the pool reports it
	}
	r.conn = conn
	r.id.Store(id)
	return conn
}

// acker is the FencedAcker of the dedicated connection, if one is open
// (nil: acknowledge through the pool). Only the worker goroutine may use it.
func (r *blockingReader) acker(w *worker) *FencedAcker {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn == nil || r.noTx {
		return nil
	}
	if r.ack == nil {
		r.ack = NewFencedAcker(r.conn, w.key, w.c.cfg.ConsumerGroup, w.fence.token)
	}
	return r.ack
}

// refuseTx makes the worker acknowledge through the fence script from now
// on (ErrTxRefused).
func (r *blockingReader) refuseTx() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noTx = true
	if r.ack != nil {
		_ = r.ack.Close(context.Background())
		r.ack = nil
	}
}

// close gives the dedicated connection back to the pool (a later read
// opens a new one).
func (r *blockingReader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeLocked()
}

// release closes the connection for good (the worker has exited).
func (r *blockingReader) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.released = true
	r.closeLocked()
}

func (r *blockingReader) closeLocked() {
	if r.conn != nil {
		r.id.Store(0)
		if r.ack != nil {
			// Drop the fence WATCH before the connection goes back to the pool;
			// a connection that failed is discarded by Close anyway.
			_ = r.ack.Close(context.Background())
			r.ack = nil
		}
		_ = r.conn.Close()
		r.conn = nil
	}
}

// unblock ends the worker's blocked read, if any, in the background. It
// keeps trying while a read is in flight (the UNBLOCK may reach Redis just
// before the read does), for at most BlockTimeout.
func (r *blockingReader) unblock(w *worker) {
	if r.id.Load() == 0 {
		// No dedicated connection: either the read goes through the shared
		// pool (nothing to unblock) or it has not started, and read() sees
		// readCtx cancelled before it blocks (connection() sets the id
		// before inRead is set).
		return
	}
	go func() {
		deadline := time.Now().Add(w.c.cfg.BlockTimeout)
		for w.inRead.Load() && time.Now().Before(deadline) {
			if id := r.id.Load(); id != 0 {
				n, err := w.c.cfg.Redis.ClientUnblock(context.Background(), id).Result()
				if err != nil || n == 1 {
					return // unblocked, or Redis is down and the read fails on its own
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
}

// isRefused reports a Redis error reply (as opposed to a transport error).
func isRefused(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// checkPoolSize warns once when the Redis pool is too small for one blocking
// XREADGROUP per shard plus acknowledgements (plus the mailbox's BLPOP).
func (c *Consumer) checkPoolSize(workers int) {
	rc, ok := c.cfg.Redis.(*redis.Client)
	if !ok || c.ls.warnedPool {
		return
	}
	spare := 2
	if c.cfg.Transport == TransportRedis {
		spare++ // the reply reader blocks in BLPOP on a connection of its own
	}
	if pool := rc.Options().PoolSize; pool > 0 && workers+spare > pool {
		c.ls.warnedPool = true
		c.log.Warn("redis PoolSize is smaller than the shards this member reads plus "+strconv.Itoa(spare)+"; each shard holds a connection while it blocks in XREADGROUP",
			"poolSize", pool, "shards", workers)
	}
}
