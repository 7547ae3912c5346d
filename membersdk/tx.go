package membersdk

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/redisstream/coordinator/membersdk/internal/fence"
)

// Errors of a transaction (Tx). A refused write queues nothing; a refused
// commit writes nothing and acknowledges nothing.
var (
	// ErrTxClosed: a write queued after the handler returned, after the
	// transaction was committed, or by a failed attempt whose writes were
	// dropped.
	ErrTxClosed = fence.ErrTxClosed
	// ErrTxSlot: on Redis Cluster, a key outside the input shard's hash slot
	// (name keys with Tx.Key).
	ErrTxSlot = fence.ErrTxSlot
	// ErrTxTooLarge: more writes or bytes than TxConfig allows.
	ErrTxTooLarge = fence.ErrTxTooLarge
	// ErrTxRejected: Redis refused the commit before writing anything — a
	// key of another type (HSET on a string), a counter that is not an
	// integer. The entry stays pending and is delivered again.
	ErrTxRejected = fence.ErrTxRejected
)

// Defaults of TxConfig.
const (
	DefaultTxMaxWrites = 1000
	DefaultTxMaxBytes  = 4 << 20
)

// TxConfig turns on transactions (docs/MEMBER-SDK.md, "Exactly-once
// processing"): every Message carries a Tx whose Redis writes commit
// together with the entry's acknowledgement, in one step that runs only
// while the shard's fence names this member at its token.
type TxConfig struct {
	Enabled bool
	// MaxWrites bounds the writes one handler queues (default 1000);
	// MaxBytes their keys and arguments in bytes (default 4 MiB). A write
	// past either is refused at the call with ErrTxTooLarge.
	MaxWrites, MaxBytes int
}

func (c *TxConfig) validate() error {
	if c.MaxWrites < 0 || c.MaxBytes < 0 {
		return fmt.Errorf("membersdk: Transactions.MaxWrites %d and MaxBytes %d must not be negative (0: the defaults, %d and %d)",
			c.MaxWrites, c.MaxBytes, DefaultTxMaxWrites, DefaultTxMaxBytes)
	}
	if c.MaxWrites == 0 {
		c.MaxWrites = DefaultTxMaxWrites
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultTxMaxBytes
	}
	return nil
}

// Tx is the transaction of one delivery of an entry
// (ConsumerConfig.Transactions): the Redis writes its handler queues land
// together with the entry's XACK, or none of them does. When the handler
// returns nil they commit with the acknowledgement — batched with the
// other entries of the read, one round trip — and when it fails, or the
// shard moved to another member first, they are dropped and the entry is
// delivered again with a new Tx. Commit commits at once instead.
//
// Writes are checked at the call: on Redis Cluster only keys in the input
// shard's hash slot qualify (Key names them), and TxConfig bounds their
// number and size. A Tx is safe for concurrent use; it takes no writes once
// its handler returned.
type Tx struct {
	w *fence.Writes
}

// Key names a key in the input shard's hash slot, "{<shard stream>}:name"
// (e.g. "{orders:3}:totals"): such keys qualify on Redis Cluster, so the
// same handler runs on one Redis and on a Cluster.
func (t *Tx) Key(name string) string { return fence.SlotKey(t.w.StreamKey(), name) }

// XAdd appends an entry with values (fields in sorted order) to stream.
func (t *Tx) XAdd(stream string, values map[string]any) error {
	if len(values) == 0 {
		return fmt.Errorf("membersdk: Tx.XAdd %q: an entry needs at least one field", stream)
	}
	return t.w.Add(fence.Op{Name: "XADD", Key: stream, Args: append([]any{"*"}, pairs(values)...)})
}

// Set sets key to value, expiring after ttl (0: no expiry).
func (t *Tx) Set(key string, value any, ttl time.Duration) error {
	args := []any{value}
	if ttl > 0 {
		args = append(args, "PX", fence.PExpireArg(ttl))
	}
	return t.w.Add(fence.Op{Name: "SET", Key: key, Args: args})
}

// HSet sets fields of the hash at key.
func (t *Tx) HSet(key string, values map[string]any) error {
	if len(values) == 0 {
		return fmt.Errorf("membersdk: Tx.HSet %q: no field to set", key)
	}
	return t.w.Add(fence.Op{Name: "HSET", Key: key, Args: pairs(values)})
}

// HIncrBy adds by to the integer field of the hash at key.
func (t *Tx) HIncrBy(key, field string, by int64) error {
	return t.w.Add(fence.Op{Name: "HINCRBY", Key: key, Args: []any{field, strconv.FormatInt(by, 10)}})
}

// IncrBy adds by to the integer at key.
func (t *Tx) IncrBy(key string, by int64) error {
	return t.w.Add(fence.Op{Name: "INCRBY", Key: key, Args: []any{strconv.FormatInt(by, 10)}})
}

// Del deletes key.
func (t *Tx) Del(key string) error { return t.w.Add(fence.Op{Name: "DEL", Key: key}) }

// Expire sets key to expire after ttl.
func (t *Tx) Expire(key string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("membersdk: Tx.Expire %q: ttl %s must be positive (Del deletes)", key, ttl)
	}
	return t.w.Add(fence.Op{Name: "PEXPIRE", Key: key, Args: []any{fence.PExpireArg(ttl)}})
}

// Commit commits the queued writes and the entry's acknowledgement now,
// and closes the Tx: nil means both landed. ErrFenced: the shard belongs to
// another member now; ErrTxRejected: Redis refused a write; either way
// nothing was written and the entry stays pending for its next delivery —
// return the error. Another error leaves the outcome unknown (all or
// nothing): the entry is delivered again only if nothing landed. Without
// Commit the writes commit when the handler returns nil.
func (t *Tx) Commit(ctx context.Context) error {
	if t.w.CommitNow == nil {
		return fmt.Errorf("%w: Commit outside a handler", ErrTxClosed)
	}
	return t.w.CommitNow(ctx)
}

// pairs flattens values into field, value, … in field order.
func pairs(values map[string]any) []any {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		out = append(out, k, values[k])
	}
	return out
}
