package fence

import (
	"context" //nolint:gosec // EVALSHA names scripts by SHA-1
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Shard fence (docs/PROTOCOL.md, "Shard fence"). The coordinator keeps one
// Redis hash per (shard stream, consumer group), in the stream's Cluster
// slot, naming the member allowed to acknowledge and claim on the shard
// ("owner") and a token that increases on every ownership change. A worker
// reads it when it starts, keeps the token, and every XACK, XAUTOCLAIM and
// dead-letter move is checked against the fence by Redis before it writes —
// batch acknowledgements on the reader's connection by a WATCH transaction
// (TxAcker, txacker.go), everything else by a script (below): a member
// frozen between its in-process ownership check and its write (GC pause,
// SIGSTOP, VM migration) is refused by Redis itself once the shard has moved
// on.
//
// A fence key that does not exist means the coordinator does not fence
// (older coordinator): the worker then runs unfenced, as before fences
// existed, and its scripts only check that the key is still absent.

// ErrFenced: the shard's fence in Redis names another owner or a newer token
// than the one this worker holds; the write was refused and nothing was
// written.
var ErrFenced = errors.New("membersdk: shard fence refused the write (the shard belongs to another owner now)")

// Key is the fence hash of (streamKey, group): protocol.FenceKey, the
// one the coordinator writes (the hash tag is the whole stream key, so the
// fence and the stream share a Redis Cluster slot).
func Key(streamKey, group string) string { return protocol.FenceKey(streamKey, group) }

// Hold is what a worker read from the fence when it started.
type Hold struct {
	Key   string
	Token int64 // the token held; meaningful only when fenced
	// fenced is false when the fence key did not exist (unfenced mode): the
	// scripts then require that it still does not.
	Fenced bool
}

// TokenArg is the token argument of the fence scripts: "" for unfenced mode.
func (h Hold) TokenArg() string {
	if !h.Fenced {
		return ""
	}
	return strconv.FormatInt(h.Token, 10)
}

// ErrNotOwned: the fence names another owner when the worker starts.
var ErrNotOwned = errors.New("membersdk: shard fence names another owner")

// Read reads the fence of the worker's shard (HMGET owner token). It
// returns ErrNotOwned (wrapped) when the fence exists and names another
// member, and a Redis error as is.
func Read(ctx context.Context, rc redis.Cmdable, key, member string) (Hold, error) {
	vals, err := rc.HMGet(ctx, key, "owner", "token").Result()
	if err != nil {
		return Hold{}, err
	}
	if vals[0] == nil && vals[1] == nil {
		return Hold{Key: key}, nil // unfenced: older coordinator
	}
	owner, _ := vals[0].(string)
	tok, _ := vals[1].(string)
	token, perr := strconv.ParseInt(tok, 10, 64)
	if perr != nil {
		return Hold{}, fmt.Errorf("%w: %s has token %q, not an integer", ErrNotOwned, key, tok)
	}
	if owner != member {
		if owner == "" {
			owner = "nobody"
		}
		return Hold{}, fmt.Errorf("%w: %s names %s (token %d), not %s", ErrNotOwned, key, owner, token, member)
	}
	return Hold{Key: key, Token: token, Fenced: true}, nil
}
