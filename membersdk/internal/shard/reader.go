package shard

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/internal/fence"
)

// Reader runs a shard worker's XREADGROUP … BLOCK on a connection of
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
type Reader struct {
	cfg  ReaderConfig
	mu   sync.Mutex // guards conn and ack; only the worker goroutine uses them
	conn *redis.Conn
	// ack acknowledges the worker's batches on conn (FencedAcker: a WATCH on
	// the shard fence stays on conn); nil until the first acknowledgement.
	ack *fence.Acker
	id  atomic.Int64 // CLIENT ID of conn; 0: none
	// noConn is set once dedicated connections turned out to be unavailable.
	noConn bool
	// released: the worker has exited; no connection is opened again.
	released bool
	// noTx: Redis refused the transaction commands (FencedAcker); acks go
	// through the fence script.
	noTx bool
}

// Read is one XREADGROUP … > BLOCK BlockTimeout of the worker's shard.
func (r *Reader) Read(readCtx context.Context) ([]redis.XStream, error) {
	ctx := context.WithoutCancel(readCtx) // see Reader: never abandon a reply
	var cmd redis.Cmdable = r.cfg.Redis
	if conn := r.connection(ctx); conn != nil {
		cmd = conn
	}
	r.cfg.InRead.Store(true)
	defer r.cfg.InRead.Store(false)
	if readCtx.Err() != nil {
		// Cancelled between the loop's check and here: the unblocker may
		// have seen inRead false and given up, so do not start to block.
		return nil, redis.Nil
	}
	res, err := cmd.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: r.cfg.Group, Consumer: r.cfg.Member,
		Streams: []string{r.cfg.Key, ">"}, Count: r.cfg.Count, Block: r.cfg.Block,
	}).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		r.close() // a failed connection is replaced (and its CLIENT ID with it)
	}
	return res, err
}

// connection returns the dedicated connection, opening it if needed; nil
// means "use the shared pool".
func (r *Reader) connection(ctx context.Context) *redis.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn != nil || r.noConn || r.released {
		return r.conn
	}
	rc, ok := r.cfg.Redis.(*redis.Client)
	if !ok {
		r.noConn = true
		return nil
	}
	conn := rc.Conn()
	id, err := conn.ClientID(ctx).Result()
	if err != nil {
		_ = conn.Close()
		if fence.IsRefused(err) {
			r.noConn = true
			r.cfg.Log.Warn("CLIENT ID refused; a stopping shard reader will wait out BlockTimeout", "shard", r.cfg.Shard, "error", err)
		}
		return nil // Redis unreachable: the read through the pool reports it
	}
	r.conn = conn
	r.id.Store(id)
	return conn
}

// Acker is the fence.Acker of the dedicated connection, if one is open
// (nil: acknowledge through the pool). Only the worker goroutine may use it.
func (r *Reader) Acker(token int64) *fence.Acker {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn == nil || r.noTx {
		return nil
	}
	if r.ack == nil {
		r.ack = fence.NewTx(r.conn, r.cfg.Key, r.cfg.Group, token)
	}
	return r.ack
}

// RefuseTx makes the worker acknowledge through the fence script from now
// on (ErrTxRefused).
func (r *Reader) RefuseTx() {
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
func (r *Reader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeLocked()
}

// Release closes the connection for good (the worker has exited).
func (r *Reader) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.released = true
	r.closeLocked()
}

func (r *Reader) closeLocked() {
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

// Unblock ends the worker's blocked read, if any, in the background. It
// keeps trying while a read is in flight (the UNBLOCK may reach Redis just
// before the read does), for at most BlockTimeout.
func (r *Reader) Unblock() {
	if r.id.Load() == 0 {
		// No dedicated connection: either the read goes through the shared
		// pool (nothing to unblock) or it has not started, and Read sees
		// readCtx cancelled before it blocks (connection() sets the id
		// before inRead is set).
		return
	}
	go func() {
		deadline := time.Now().Add(r.cfg.Block)
		for r.cfg.InRead.Load() && time.Now().Before(deadline) {
			if id := r.id.Load(); id != 0 {
				n, err := r.cfg.Redis.ClientUnblock(context.Background(), id).Result()
				if err != nil || n == 1 {
					return // unblocked, or Redis is down and the read fails on its own
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
}

// ReaderConfig is what a Reader reads: one shard stream of a group, as one
// member.
type ReaderConfig struct {
	Redis         redis.UniversalClient
	Group, Member string
	Key           string // the shard stream
	Shard         int    // for logs
	Count         int64  // XREADGROUP COUNT
	Block         time.Duration
	Log           *slog.Logger
	// InRead is set while a read that delivers entries may be in flight;
	// the worker shares it with its own claims.
	InRead *atomic.Bool
}

// NewReader returns a reader that opens its connection on the first Read.
func NewReader(cfg ReaderConfig) *Reader { return &Reader{cfg: cfg} }
