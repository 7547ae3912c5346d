package fence

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Errors of a transaction's writes (Writes) and of its commit.
var (
	// ErrTxClosed: a write queued after the handler returned or after the
	// transaction was committed.
	ErrTxClosed = errors.New("membersdk: transaction closed")
	// ErrTxSlot: on Redis Cluster, a key outside the input shard's hash slot.
	ErrTxSlot = errors.New("membersdk: key outside the input shard's hash slot")
	// ErrTxTooLarge: more writes or bytes than the transaction's bounds.
	ErrTxTooLarge = errors.New("membersdk: transaction too large")
	// ErrTxRejected: Redis refused the commit before writing anything (a key
	// of the wrong type, a counter that is not an integer).
	ErrTxRejected = errors.New("membersdk: transaction rejected by Redis, nothing written")
)

// TxLimits bound one transaction (the writes of one entry's handler).
type TxLimits struct {
	MaxWrites int // queued writes
	MaxBytes  int // bytes of keys and arguments
}

// Op is one queued write: a command on one key.
type Op struct {
	Name string // XADD, SET, HSET, HINCRBY, INCRBY, DEL, PEXPIRE
	Key  string
	Args []any
}

// Writes are the Redis writes one handler queued for its entry; they commit
// with the entry's acknowledgement (Commit). Safe for concurrent use.
type Writes struct {
	streamKey string
	slot      int // the input shard's hash slot; -1: any key (not Redis Cluster)
	lim       TxLimits

	mu     sync.Mutex
	ops    []Op
	bytes  int
	closed string // why no more writes are taken ("" while open)
	// CommitNow, set by the worker, commits the writes and the entry's
	// acknowledgement at once (Tx.Commit).
	CommitNow func(ctx context.Context) error
}

// NewWrites returns an open transaction for an entry of streamKey. With
// cluster set, only keys in streamKey's hash slot are taken.
func NewWrites(streamKey string, cluster bool, lim TxLimits) *Writes {
	w := &Writes{streamKey: streamKey, slot: -1, lim: lim}
	if cluster {
		w.slot = protocol.RedisSlot(streamKey)
	}
	return w
}

// StreamKey is the input shard's stream key.
func (w *Writes) StreamKey() string { return w.streamKey }

// Add queues op, or refuses it with the reason (nothing queued).
func (w *Writes) Add(op Op) error {
	if w.slot >= 0 && protocol.RedisSlot(op.Key) != w.slot {
		return fmt.Errorf("%w: %s %q is in slot %d, the shard %s in slot %d; on Redis Cluster a transaction writes only keys of its input shard's slot: name them with Tx.Key (\"{%s}:<name>\"), or write elsewhere through an idempotent producer",
			ErrTxSlot, op.Name, op.Key, protocol.RedisSlot(op.Key), w.streamKey, w.slot, w.streamKey)
	}
	size := len(op.Key)
	for i, a := range op.Args {
		n, ok := argSize(a)
		if !ok {
			return fmt.Errorf("membersdk: %s %q: argument %d is a %T; a transaction takes strings, []byte, numbers and booleans", op.Name, op.Key, i+1, a)
		}
		size += n
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed != "":
		return fmt.Errorf("%w: %s %q not queued: %s", ErrTxClosed, op.Name, op.Key, w.closed)
	case w.lim.MaxWrites > 0 && len(w.ops)+1 > w.lim.MaxWrites:
		return fmt.Errorf("%w: %s %q would be write %d, above the bound of %d (ConsumerConfig.Transactions.MaxWrites)", ErrTxTooLarge, op.Name, op.Key, len(w.ops)+1, w.lim.MaxWrites)
	case w.lim.MaxBytes > 0 && w.bytes+size > w.lim.MaxBytes:
		return fmt.Errorf("%w: %s %q would make %d bytes, above the bound of %d (ConsumerConfig.Transactions.MaxBytes)", ErrTxTooLarge, op.Name, op.Key, w.bytes+size, w.lim.MaxBytes)
	}
	w.ops = append(w.ops, op)
	w.bytes += size
	return nil
}

// Close takes no more writes (why says what closed it) and returns what was
// queued; ErrTxClosed if it was closed already (nothing to commit then).
func (w *Writes) Close(why string) ([]Op, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed != "" {
		return nil, fmt.Errorf("%w: %s", ErrTxClosed, w.closed)
	}
	w.closed = why
	return w.ops, nil
}

// Bytes is the size of the queued writes.
func (w *Writes) Bytes() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bytes
}

func argSize(a any) (int, bool) {
	switch v := a.(type) {
	case string:
		return len(v), true
	case []byte:
		return len(v), true
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, bool:
		return len(fmt.Sprint(v)), true
	default:
		return 0, false
	}
}

// CommitScript applies queued writes and acknowledges entries in one step,
// only while the shard's fence names the member at its token:
//
//	KEYS = {stream, fence, key of write 1, key of write 2, …}
//	ARGV = {member, token, group, n, id 1 … id n,
//	        then per write: command, argument count, arguments…}
//
// It first checks the fence (Check: "FENCED …" refuses), then every write
// against the data as the writes before it leave it (a key of another type,
// a counter that is not an integer: "TXREJECTED write i (CMD key): …",
// nothing written), then runs the writes in order and XACK of the ids.
// Redis runs a script alone and whole, so either all of it lands or, on a
// refusal, none of it. Returns the number of entries acknowledged.
var CommitScript = NewScript(Check + `
local nids = tonumber(ARGV[4])
local kinds, strs, fields, gone = {}, {}, {}, {}
local function kind(k)
  if kinds[k] == nil then kinds[k] = redis.call('TYPE', k)['ok'] end
  return kinds[k]
end
local function reject(i, name, k, why)
  return redis.error_reply('TXREJECTED write ' .. i .. ' (' .. name .. ' ' .. k .. '): ' .. why)
end
local function int(v)
  if v == nil or v == false then return 0 end
  if type(v) == 'number' then return v end
  if not string.match(v, '^-?%d+$') or #v > 19 then return nil end
  return tonumber(v)
end
local LIMIT = 1e18
local ops = {}
local a, ki = 5 + nids, 3
while a <= #ARGV do
  local name, n, k = ARGV[a], tonumber(ARGV[a + 1]), KEYS[ki]
  local i = #ops + 1
  ops[i] = {name, k, a + 2, n}
  local t = kind(k)
  if name == 'XADD' then
    if t ~= 'none' and t ~= 'stream' then return reject(i, name, k, 'the key holds a ' .. t .. ', not a stream') end
    kinds[k] = 'stream'
  elseif name == 'HSET' or name == 'HINCRBY' then
    if t ~= 'none' and t ~= 'hash' then return reject(i, name, k, 'the key holds a ' .. t .. ', not a hash') end
    fields[k] = fields[k] or {}
    if name == 'HSET' then
      for j = a + 2, a + 1 + n, 2 do fields[k][ARGV[j]] = ARGV[j + 1] end
    else
      local f, by = ARGV[a + 2], int(ARGV[a + 3])
      if by == nil then return reject(i, name, k, 'the increment is not an integer') end
      local cur = fields[k][f]
      if cur == nil and t == 'hash' and not gone[k] then cur = redis.call('HGET', k, f) end
      cur = int(cur)
      if cur == nil then return reject(i, name, k, 'field ' .. f .. ' is not an integer') end
      if math.abs(cur) >= LIMIT or math.abs(by) >= LIMIT then return reject(i, name, k, 'field ' .. f .. ' is too large to add to safely') end
      fields[k][f] = cur + by
    end
    kinds[k] = 'hash'
  elseif name == 'INCRBY' then
    if t ~= 'none' and t ~= 'string' then return reject(i, name, k, 'the key holds a ' .. t .. ', not a string') end
    local cur = strs[k]
    if cur == nil and t == 'string' and not gone[k] then cur = redis.call('GET', k) end
    cur = int(cur)
    local by = int(ARGV[a + 2])
    if cur == nil then return reject(i, name, k, 'the value is not an integer') end
    if by == nil then return reject(i, name, k, 'the increment is not an integer') end
    if math.abs(cur) >= LIMIT or math.abs(by) >= LIMIT then return reject(i, name, k, 'the value is too large to add to safely') end
    strs[k] = cur + by
    kinds[k] = 'string'
  elseif name == 'SET' then
    strs[k] = ARGV[a + 2]
    kinds[k] = 'string'
  elseif name == 'DEL' then
    kinds[k], strs[k], fields[k], gone[k] = 'none', nil, nil, true
  elseif name ~= 'PEXPIRE' then
    return reject(i, name, k, 'not a transaction write')
  end
  a = a + 2 + n
  ki = ki + 1
end
for _, o in ipairs(ops) do
  redis.call(o[1], o[2], unpack(ARGV, o[3], o[3] + o[4] - 1))
end
if nids == 0 then return 0 end
return redis.call('XACK', KEYS[1], ARGV[3], unpack(ARGV, 5, 4 + nids))
`)

// Commit runs CommitScript on rc: ops, then the XACK of ids on streamKey
// for group, if the shard's fence names memberID with token (0: unfenced,
// the fence must not exist). ErrFenced or ErrTxRejected (wrapped): nothing
// was written. Another error: the outcome is unknown, but it is all or
// nothing — the ids are still pending exactly when nothing was written.
func Commit(ctx context.Context, rc redis.Cmdable, streamKey, group, memberID string, token int64, ids []string, ops []Op) (int64, error) {
	h := Hold{Key: Key(streamKey, group), Token: token, Fenced: token != 0}
	keys := make([]string, 0, 2+len(ops))
	keys = append(keys, streamKey, h.Key)
	n := 4 + len(ids)
	for _, op := range ops {
		n += 2 + len(op.Args)
	}
	args := make([]any, 0, n)
	args = append(args, memberID, h.TokenArg(), group, len(ids))
	for _, id := range ids {
		args = append(args, id)
	}
	for _, op := range ops {
		keys = append(keys, op.Key)
		args = append(args, op.Name, len(op.Args))
		args = append(args, op.Args...)
	}
	cmd, err := CommitScript.Run(ctx, rc, keys, args, newIntCmd)
	if err != nil {
		if strings.HasPrefix(err.Error(), "TXREJECTED") {
			return 0, fmt.Errorf("%w: %s", ErrTxRejected, strings.TrimPrefix(err.Error(), "TXREJECTED "))
		}
		return 0, err
	}
	return cmd.(*redis.IntCmd).Val(), nil
}

// PExpireArg is a TTL as PEXPIRE's and SET PX's argument (at least 1 ms).
func PExpireArg(ttl time.Duration) string {
	return strconv.FormatInt(max(ttl.Milliseconds(), 1), 10)
}
