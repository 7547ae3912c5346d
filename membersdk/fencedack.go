package membersdk

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/internal/fence"
)

// FencedAcker acknowledges entries of one shard through the shard fence on a
// connection of its own, without a script: an optimistic transaction that
// Redis aborts when the fence was written since it was last checked.
//
// The connection keeps a WATCH on the fence key at all times. Arming sends
// WATCH and then reads the fence's token: a token equal to the one held means
// the fence has not moved since the worker read it (every fence write
// increases the token), and from the WATCH on any write to the fence is
// noticed by Redis. Each Ack is then one round trip:
//
//	MULTI, XACK stream group id…, EXEC, WATCH fence, HGET fence token
//
// EXEC runs the XACK only if the fence was not written since the previous
// WATCH (otherwise it returns nil: nothing acknowledged, ErrFenced); WATCH
// and HGET re-arm for the next Ack (EXEC drops every WATCH). A token that
// differs after the EXEC disarms the acker, and the next Ack reports
// ErrFenced when it re-arms. The guarantee is the one of the fence script
// (NewFencedScriptAcker): an XACK lands only while the fence names this
// holder at the token held — at about the cost of a plain XACK, since Redis
// runs no Lua (docs/BENCHMARKS.md, "Fenced acknowledgements").
//
// The fence key and the stream share a Redis Cluster slot, so the
// transaction is valid on a Cluster node too. A transaction acker is not
// safe for concurrent use, and nothing else may run MULTI/EXEC or UNWATCH on
// its connection. Close (UNWATCH) before the connection goes back to a pool:
// a WATCH left on a pooled connection could abort someone else's
// transaction.
//
// Without a connection of its own (a pool, a Cluster client, several
// goroutines acknowledging, or a Redis that refuses transactions:
// ErrTxRefused), use NewFencedScriptAcker: the same Ack through the fence
// script, the one the Consumer uses for claims and dead-letter moves.
type FencedAcker struct {
	a *fence.Acker
}

// NewFencedAcker returns an acker for streamKey and group on conn, holding
// token (0: the coordinator does not fence, and the fence key must not
// exist). Nothing is sent until the first Ack.
func NewFencedAcker(conn *redis.Conn, streamKey, group string, token int64) *FencedAcker {
	return &FencedAcker{a: fence.NewTx(conn, streamKey, group, token)}
}

// NewFencedScriptAcker returns an acker for streamKey and group that
// acknowledges through the fence script (EVALSHA) on rc, which may be a
// pool or a Cluster client: each Ack checks, in Redis, that the shard's
// fence names memberID with token (0: unfenced, the fence key must not
// exist) and only then runs the XACK. It is safe for concurrent use and
// Close does nothing.
func NewFencedScriptAcker(rc redis.Cmdable, streamKey, group, memberID string, token int64) *FencedAcker {
	return &FencedAcker{a: fence.NewScriptAcker(rc, streamKey, group, memberID, token)}
}

// Ack acknowledges ids (one XACK) if the fence still holds the token, and
// returns how many were pending. ErrFenced or ErrTxRefused (wrapped):
// nothing was acknowledged. Another error: the outcome is unknown (the
// connection failed mid-way); a transaction acker re-arms before its next
// Ack.
func (a *FencedAcker) Ack(ctx context.Context, ids ...string) (int64, error) {
	return a.a.Ack(ctx, ids...)
}

// ErrTxRefused: Redis refused MULTI, DISCARD or WATCH on the acker's
// connection (an ACL without them, a proxy without transactions). Nothing
// was acknowledged; acknowledge through the fence script
// (NewFencedScriptAcker) instead.
var ErrTxRefused = fence.ErrTxRefused

// Close drops the WATCH (UNWATCH), if one may be active, so that the
// connection can go back to a pool. It does not close the connection.
func (a *FencedAcker) Close(ctx context.Context) error {
	return a.a.Close(ctx)
}
