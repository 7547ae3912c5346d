package fence

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Acker acknowledges entries of one shard through the shard fence on a
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
type Acker struct {
	conn *redis.Conn
	// script mode (NewFencedScriptAcker): rc set, conn nil.
	rc                   redis.Cmdable
	member               string
	token                int64
	stream, group, fence string
	want                 string // token held, decimal; "" = unfenced (the fence must not exist)
	armed                bool   // WATCH active on conn and the token seen after it
	watched              bool   // a WATCH may be active on conn (Close must UNWATCH)
	args                 []any  // XACK arguments, reused
}

// NewTx returns an acker for streamKey and group on conn, holding
// token (0: the coordinator does not fence, and the fence key must not
// exist). Nothing is sent until the first Ack.
func NewTx(conn *redis.Conn, streamKey, group string, token int64) *Acker {
	a := &Acker{conn: conn, stream: streamKey, group: group, fence: Key(streamKey, group)}
	if token != 0 {
		a.want = strconv.FormatInt(token, 10)
	}
	return a
}

// NewScriptAcker returns an acker for streamKey and group that
// acknowledges through the fence script (EVALSHA) on rc, which may be a
// pool or a Cluster client: each Ack checks, in Redis, that the shard's
// fence names memberID with token (0: unfenced, the fence key must not
// exist) and only then runs the XACK. It is safe for concurrent use and
// Close does nothing.
func NewScriptAcker(rc redis.Cmdable, streamKey, group, memberID string, token int64) *Acker {
	return &Acker{rc: rc, member: memberID, token: token, stream: streamKey, group: group, fence: Key(streamKey, group)}
}

// Ack acknowledges ids (one XACK) if the fence still holds the token, and
// returns how many were pending. ErrFenced or ErrTxRefused (wrapped):
// nothing was acknowledged. Another error: the outcome is unknown (the
// connection failed mid-way); a transaction acker re-arms before its next
// Ack.
func (a *Acker) Ack(ctx context.Context, ids ...string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	if a.rc != nil {
		return ScriptXAck(ctx, a.rc, a.stream, a.group, a.member, a.token, ids...)
	}
	if !a.armed {
		if err := a.arm(ctx); err != nil {
			return 0, err
		}
	}
	a.args = append(a.args[:0], "xack", a.stream, a.group)
	for _, id := range ids {
		a.args = append(a.args, id)
	}
	multi := redis.NewStatusCmd(ctx, "multi")
	xack := redis.NewStatusCmd(ctx, a.args...) // QUEUED
	exec := redis.NewSliceCmd(ctx, "exec")
	watch := redis.NewStatusCmd(ctx, "watch", a.fence)
	tok := redis.NewStringCmd(ctx, "hget", a.fence, "token")
	a.armed = false
	a.watched = true
	_, err := a.conn.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, c := range []redis.Cmder{multi, xack, exec, watch, tok} {
			_ = p.Process(ctx, c)
		}
		return nil
	})
	clear(a.args) // drop the ids: the slice is kept for the next Ack
	switch xerr := exec.Err(); {
	case errors.Is(xerr, redis.Nil):
		return 0, fmt.Errorf("%w: the fence %s was written since it was checked (now token=%s)", ErrFenced, a.fence, tokenText(tok))
	case xerr != nil:
		if err == nil {
			err = xerr
		}
		return 0, err
	}
	res := exec.Val()
	if len(res) != 1 {
		return 0, fmt.Errorf("membersdk: EXEC of the fenced XACK answered %d replies, want 1", len(res))
	}
	n, ok := res[0].(int64)
	if !ok {
		if e, isErr := res[0].(error); isErr {
			return 0, e
		}
		return 0, fmt.Errorf("membersdk: XACK answered %T, want an integer", res[0])
	}
	a.armed = watch.Err() == nil && a.tokenMatches(tok)
	return n, nil
}

// ErrTxRefused: Redis refused MULTI, DISCARD or WATCH on the acker's
// connection (an ACL without them, a proxy without transactions). Nothing
// was acknowledged; acknowledge through the fence script
// (NewFencedScriptAcker) instead.
var ErrTxRefused = errors.New("membersdk: Redis refused the transaction commands the fenced acknowledgement needs")

// arm sends MULTI, DISCARD (which also drops any WATCH), WATCH fence and
// HGET fence token; ErrFenced when the token is not the one held. The
// MULTI/DISCARD pair proves that Redis accepts transactions on this
// connection before an XACK is ever sent in one: a refused MULTI would
// leave the XACK behind it to run unchecked.
func (a *Acker) arm(ctx context.Context) error {
	multi := redis.NewStatusCmd(ctx, "multi")
	discard := redis.NewStatusCmd(ctx, "discard")
	watch := redis.NewStatusCmd(ctx, "watch", a.fence)
	tok := redis.NewStringCmd(ctx, "hget", a.fence, "token")
	a.watched = true
	_, err := a.conn.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, c := range []redis.Cmder{multi, discard, watch, tok} {
			_ = p.Process(ctx, c)
		}
		return nil
	})
	for _, c := range []redis.Cmder{multi, discard, watch} {
		if cerr := c.Err(); cerr != nil {
			if IsRefused(cerr) {
				return fmt.Errorf("%w: %s: %v", ErrTxRefused, c.Name(), cerr)
			}
			return cerr
		}
	}
	if terr := tok.Err(); terr != nil && !errors.Is(terr, redis.Nil) {
		return terr
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if !a.tokenMatches(tok) {
		return fmt.Errorf("%w: %s has token=%s, this worker holds %s", ErrFenced, a.fence, tokenText(tok), tokenText0(a.want))
	}
	a.armed = true
	return nil
}

// tokenMatches: the HGET reply is the token held ("" held: no token).
func (a *Acker) tokenMatches(tok *redis.StringCmd) bool {
	v, err := tok.Result()
	if errors.Is(err, redis.Nil) {
		return a.want == ""
	}
	return err == nil && v == a.want
}

// Close drops the WATCH (UNWATCH), if one may be active, so that the
// connection can go back to a pool. It does not close the connection.
func (a *Acker) Close(ctx context.Context) error {
	a.armed = false
	if a.conn == nil || !a.watched {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	err := a.conn.Process(ctx, redis.NewStatusCmd(ctx, "unwatch"))
	if err == nil {
		a.watched = false
	}
	return err
}

func tokenText(tok *redis.StringCmd) string {
	v, err := tok.Result()
	if err != nil {
		return "none"
	}
	return v
}

func tokenText0(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// IsRefused reports an error reply of Redis (a refused command, NOPERM, an
// unknown command), as opposed to a network failure.
func IsRefused(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}
