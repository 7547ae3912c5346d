package membersdk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/internal/fence"
	"github.com/redisstream/coordinator/membersdk/internal/retry"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Defaults of the idempotent producer (ProducerConfig.ProducerID).
const (
	DefaultDedupWindow      = time.Hour
	DefaultProducerClaimTTL = 10 * time.Second
)

// ErrProducerIDInUse: another live producer holds ProducerConfig.ProducerID
// for this stream; nothing was published.
var ErrProducerIDInUse = errors.New("membersdk: producer id in use by another live producer")

// ErrNotIdempotent: PublishOnce on a producer without a ProducerID.
var ErrNotIdempotent = errors.New("membersdk: the producer is not idempotent (ProducerConfig.ProducerID is empty)")

// dedupScript appends an entry unless the producer's dedup record already
// names one for the idempotent id, in one step:
//
//	KEYS = {stream, record of this window bucket, record of the previous bucket}
//	ARGV = {idempotent id, record TTL ms ("" = the record has one already),
//	        MAXLEN ("" = none), look up ("1"; "0" = an id never sent before),
//	        field, value, …}
//
// Replies {entry id, 1} for an id seen in the window (nothing written),
// {new entry id, 0} after XADD NOMKSTREAM and HSET of the record, or nil
// when the stream does not exist (nothing written). The look-up is skipped
// for the first attempt of an id the producer made up itself (Publish), and
// the TTL is sent with a process's first write to a record only: a common
// publish is XADD and HSET.
var dedupScript = fence.NewScript(`
if ARGV[4] == '1' then
  local id = redis.call('HGET', KEYS[2], ARGV[1])
  if not id then id = redis.call('HGET', KEYS[3], ARGV[1]) end
  if id then return {id, 1} end
end
local args = {'XADD', KEYS[1], 'NOMKSTREAM'}
if ARGV[3] ~= '' then
  args[#args + 1] = 'MAXLEN'
  args[#args + 1] = '~'
  args[#args + 1] = ARGV[3]
end
args[#args + 1] = '*'
for i = 5, #ARGV do args[#args + 1] = ARGV[i] end
local new = redis.call(unpack(args))
if not new then return false end
redis.call('HSET', KEYS[2], ARGV[1], new)
if ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return {new, 0}
`)

// claimScript takes or renews the producer id claim: KEYS = {claim};
// ARGV = {incarnation, TTL ms}. Replies OK, or {holder, remaining ms} when
// another incarnation holds it.
var claimScript = fence.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return {cur, redis.call('PTTL', KEYS[1])} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'OK'
`)

// releaseScript drops the claim if this incarnation holds it.
var releaseScript = fence.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// idempotence is a producer's idempotent state (ProducerID set).
type idempotence struct {
	incarnation string
	seq         atomic.Uint64 // newID's counter

	mu        sync.Mutex
	claimedAt time.Time
	pins      map[string]pin // idempotent id → where an attempt went, within the window
	// idmp: Redis has XADD IDMP (≥ 8.6), asked once (mechanism); idmpSet:
	// the streams whose IDMP window this producer has checked.
	checked bool
	idmp    bool
	idmpSet map[string]bool
	// expiring: records that have their TTL (a write of this process that
	// carried it ran). A record lives 2 windows from its first write and is
	// written to during one window, so its TTL is set once.
	expiring map[string]struct{}
}

// pin is the shard (stream key and index) an attempt of an idempotent id
// went to.
type pin struct {
	key   string
	shard int
	at    time.Time
}

// maxPins bounds the remembered attempts; past it the oldest half of the
// window is forgotten.
const maxPins = 100_000

func newIdempotence() *idempotence {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &idempotence{incarnation: hex.EncodeToString(b), pins: map[string]pin{}, expiring: map[string]struct{}{}, idmpSet: map[string]bool{}}
}

// newID is the id Publish gives an entry of an idempotent producer, so
// that its own retries never write twice: the producer's incarnation (8
// random bytes, new in every process) and a counter, unique under the
// producer id without a random draw per entry.
func (id *idempotence) newID() string {
	return id.incarnation + "-" + strconv.FormatUint(id.seq.Add(1), 36)
}

// PublishOnce appends values to the shard partitionKey routes to, at most
// once per idempotentID of this producer (ProducerConfig.ProducerID) within
// the dedup window: a retry of the same id — after a lost reply, a timeout,
// a Redis restart or failover, or by a restarted process with the same
// ProducerID — returns the id of the entry that landed (Published.Duplicate)
// and writes nothing. Failures whose outcome is unknown (connection lost,
// Redis loading or failing over, ErrNotReplicated) are retried here until
// ctx ends, which is safe for the same reason. idempotentID is the caller's
// name for the entry: for a consume → produce pipeline, the input entry
// (stream, id) it derives from. docs/MEMBER-SDK.md, "Idempotent producer".
func (p *Producer) PublishOnce(ctx context.Context, partitionKey, idempotentID string, values map[string]any) (Published, error) {
	if p.idem == nil {
		return Published{}, ErrNotIdempotent
	}
	if idempotentID == "" {
		return Published{}, errors.New("membersdk: PublishOnce needs an idempotent id (the caller's name for the entry)")
	}
	if len(values) == 0 {
		return Published{}, errors.New("membersdk: PublishOnce: an entry needs at least one field")
	}
	return p.publishOnce(ctx, partitionKey, idempotentID, values, true)
}

// publishOnce is PublishOnce; lookUp false: the first attempt of an id
// this producer made up itself needs no look-up (nothing can have it).
func (p *Producer) publishOnce(ctx context.Context, partitionKey, idempotentID string, values map[string]any, lookUp bool) (Published, error) {
	if err := p.claim(ctx); err != nil {
		return Published{}, err
	}
	key, shard := p.pinned(idempotentID)
	refreshed := false
	bo := retry.NewBackoff(20*time.Millisecond, 500*time.Millisecond)
	for {
		c, err := p.cache.Get(ctx)
		if err != nil {
			return Published{}, err
		}
		routedShard, routed, err := p.locate(&c.R, partitionKey)
		if err != nil {
			return Published{}, err
		}
		if key == "" {
			key, shard = routed, routedShard
		}
		id, dup, err := p.dedupAdd(ctx, key, idempotentID, values, lookUp)
		lookUp = true // a retry may find what this attempt wrote
		switch {
		case err == nil:
			p.unpin(idempotentID)
			return Published{ID: id, Shard: shard, StreamKey: key, MetadataVersion: c.R.MetadataVersion, Refreshed: refreshed, Duplicate: dup}, nil
		case errors.Is(err, redis.Nil) && !refreshed:
			// The stream is gone (retired by a scale-in after a drain that
			// consumed everything in it): an earlier attempt that landed
			// there was delivered; go where the routing points now.
			p.log.Info("shard stream missing (retired by a scale-in?); refreshing routing and retrying", "key", key, "idempotentId", idempotentID)
			p.Invalidate()
			key, refreshed = "", true
			continue
		case errors.Is(err, redis.Nil):
			return Published{}, fmt.Errorf("%w: %s (after a routing refresh)", ErrStreamMissing, key)
		case ctx.Err() != nil:
			// The call may have been sent (and may land): the caller's next
			// attempt goes to the same shard, where its record is.
			p.pin(idempotentID, key, shard)
			return Published{}, fmt.Errorf("membersdk: idempotent XADD %s: %w (last error: %v); the outcome is unknown and publishing again with the same idempotent id is safe", key, ctx.Err(), err)
		case !retryable(err):
			return Published{}, fmt.Errorf("membersdk: idempotent XADD %s: %w", key, err)
		}
		// The outcome is unknown: a later attempt, in this call or the
		// caller's next, goes to the same shard, where its record is.
		p.pin(idempotentID, key, shard)
		p.log.Debug("idempotent publish failed, outcome unknown; retrying with the same idempotent id", "key", key, "idempotentId", idempotentID, "error", err)
		if !bo.Wait(ctx) {
			return Published{}, fmt.Errorf("membersdk: idempotent XADD %s: %w (last error: %v); publishing again with the same idempotent id is safe", key, ctx.Err(), err)
		}
	}
}

// dedupAdd runs dedupScript on key (with WaitReplicas, WAIT after it on the
// same connection). dup: the id was in the window, nothing was written.
func (p *Producer) dedupAdd(ctx context.Context, key, iid string, values map[string]any, lookUp bool) (string, bool, error) {
	idmp, err := p.mechanism(ctx)
	if err != nil {
		return "", false, err
	}
	if idmp {
		id, err := p.idmpAdd(ctx, key, iid, values)
		return id, false, err
	}
	w := p.cfg.DedupWindow
	bucket := time.Now().UnixMilli() / w.Milliseconds()
	record := protocol.DedupKey(key, p.cfg.ProducerID, bucket)
	keys := []string{key, record, protocol.DedupKey(key, p.cfg.ProducerID, bucket-1)}
	maxLen := ""
	if p.cfg.MaxLen > 0 {
		maxLen = strconv.FormatInt(p.cfg.MaxLen, 10)
	}
	ttl := ""
	if !p.idem.hasTTL(record) {
		ttl = strconv.FormatInt(2*w.Milliseconds(), 10)
	}
	look := "0"
	if lookUp {
		look = "1"
	}
	args := append([]any{iid, ttl, maxLen, look}, pairs(values)...)
	if p.cfg.WaitReplicas <= 0 {
		cmd, err := dedupScript.Run(ctx, p.cfg.Redis, keys, args, newSliceCmd)
		if err != nil {
			return "", false, err
		}
		p.idem.noteTTL(record)
		return dedupReply(cmd.(*redis.SliceCmd).Val())
	}
	var add *redis.Cmd
	wait, err := p.waited(ctx, key, func(pl redis.Pipeliner) {
		// EVAL, not EVALSHA: a pipeline cannot fall back on NOSCRIPT.
		add = pl.Eval(ctx, dedupScript.Src, keys, args...)
	})
	if wait == nil {
		return "", false, err
	}
	res, addErr := add.Slice()
	if addErr != nil {
		return "", false, addErr
	}
	id, dup, rerr := dedupReply(res)
	if rerr != nil {
		return "", false, rerr
	}
	p.idem.noteTTL(record)
	if err != nil && wait.Err() == nil { // the pipeline failed elsewhere than at WAIT
		return "", false, err
	}
	return id, dup, p.enoughReplicas(id, key, wait)
}

func newSliceCmd(ctx context.Context, args ...any) redis.Cmder {
	return redis.NewSliceCmd(ctx, args...)
}

func dedupReply(v []any) (string, bool, error) {
	if len(v) != 2 {
		return "", false, fmt.Errorf("membersdk: dedup script answered %d values, want 2", len(v))
	}
	id, ok := v[0].(string)
	if !ok {
		return "", false, fmt.Errorf("membersdk: dedup script answered an id of type %T", v[0])
	}
	n, _ := v[1].(int64)
	return id, n == 1, nil
}

// retryable: the outcome of the command is unknown or Redis asks to come
// back (connection lost, timeout, loading, failing over, not replicated in
// time): an idempotent publish may be sent again.
func retryable(err error) bool {
	if errors.Is(err, redis.ErrClosed) {
		return false
	}
	if errors.Is(err, ErrNotReplicated) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	if redis.IsLoadingError(err) || redis.IsReadOnlyError(err) || redis.IsTryAgainError(err) || redis.IsClusterDownError(err) ||
		redis.IsMasterDownError(err) || redis.IsNoReplicasError(err) {
		return true
	}
	if _, moved := redis.IsMovedError(err); moved {
		return true
	}
	if _, ask := redis.IsAskError(err); ask {
		return true
	}
	s := err.Error()
	for _, p := range []string{"connection reset", "broken pipe", "connection refused", "use of closed network connection", "i/o timeout"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// claim takes or renews this producer's claim on its ProducerID (a third
// of the claim TTL after the last renewal at the latest).
func (p *Producer) claim(ctx context.Context) error {
	if p.cfg.SharedProducerID {
		return nil
	}
	id := p.idem
	id.mu.Lock()
	defer id.mu.Unlock()
	if !id.claimedAt.IsZero() && time.Since(id.claimedAt) < p.cfg.ProducerClaimTTL/3 {
		return nil
	}
	key := protocol.ProducerClaimKey(p.cfg.StreamPrefix, p.cfg.ProducerID)
	cmd, err := claimScript.Run(ctx, p.cfg.Redis, []string{key}, []any{id.incarnation, p.cfg.ProducerClaimTTL.Milliseconds()}, newCmd)
	if err != nil {
		return fmt.Errorf("membersdk: claim producer id %q: %w", p.cfg.ProducerID, err)
	}
	if v, ok := cmd.(*redis.Cmd).Val().([]any); ok && len(v) == 2 {
		ms, _ := v[1].(int64)
		return fmt.Errorf("%w: %q on stream %q is held by incarnation %v for %s more (this is %s); give every live producer its own ProducerID — a restarted producer gets its id back once the old claim expires",
			ErrProducerIDInUse, p.cfg.ProducerID, p.cfg.StreamPrefix, v[0], time.Duration(ms)*time.Millisecond, id.incarnation)
	}
	id.claimedAt = time.Now()
	return nil
}

func newCmd(ctx context.Context, args ...any) redis.Cmder { return redis.NewCmd(ctx, args...) }

// Close releases the producer's claim on its ProducerID, so that another
// process may use it at once. Publishing after Close takes it again.
func (p *Producer) Close(ctx context.Context) error {
	if p.idem == nil {
		return nil
	}
	p.idem.mu.Lock()
	defer p.idem.mu.Unlock()
	p.idem.claimedAt = time.Time{}
	key := protocol.ProducerClaimKey(p.cfg.StreamPrefix, p.cfg.ProducerID)
	_, err := releaseScript.Run(ctx, p.cfg.Redis, []string{key}, []any{p.idem.incarnation}, newCmd)
	return err
}

// pinned is where an earlier attempt of iid went (key "" if none in the
// window).
func (p *Producer) pinned(iid string) (key string, shard int) {
	p.idem.mu.Lock()
	defer p.idem.mu.Unlock()
	if pn, ok := p.idem.pins[iid]; ok && time.Since(pn.at) < p.cfg.DedupWindow {
		return pn.key, pn.shard
	}
	return "", 0
}

// IDMP limits of Redis 8.6 (XCFGSET): the longest window, the most ids
// kept per producer and stream.
const (
	idmpMaxDuration = 24 * time.Hour
	idmpMaxSize     = 10_000
)

// mechanism tells, once per producer (its connection pool), whether Redis
// has XADD IDMP (Redis ≥ 8.6), and logs the choice once.
func (p *Producer) mechanism(ctx context.Context) (bool, error) {
	id := p.idem
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.checked {
		return id.idmp, nil
	}
	info, err := p.cfg.Redis.Info(ctx, "server").Result()
	if err != nil {
		return false, fmt.Errorf("membersdk: ask Redis its version (INFO server): %w", err)
	}
	version := "unknown"
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			version = v
		}
	}
	id.checked, id.idmp = true, hasIDMP(version)
	if id.idmp {
		p.log.Info("idempotent producer: Redis deduplicates with XADD IDMP", "redisVersion", version, "producerId", p.cfg.ProducerID,
			"window", min(p.cfg.DedupWindow, idmpMaxDuration), "idsKeptPerProducerAndShard", idmpMaxSize)
	} else {
		p.log.Info("idempotent producer: Redis has no XADD IDMP (8.6 and later); a dedup record beside each shard stream does the same",
			"redisVersion", version, "producerId", p.cfg.ProducerID, "window", p.cfg.DedupWindow)
	}
	return id.idmp, nil
}

// hasIDMP reports whether Redis version v ("8.6.0") has XADD IDMP.
func hasIDMP(v string) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > 8 || major == 8 && minor >= 6
}

// idmpAdd publishes with XADD NOMKSTREAM IDMP producer-id idempotent-id
// (with WaitReplicas, WAIT after it). Redis answers a duplicate with the
// id of the entry that landed and writes nothing; it cannot tell which, so
// Published.Duplicate stays false on this path.
func (p *Producer) idmpAdd(ctx context.Context, key, iid string, values map[string]any) (string, error) {
	if err := p.idmpWindow(ctx, key); err != nil {
		return "", err
	}
	args := &redis.XAddArgs{Stream: key, NoMkStream: true, ProducerID: p.cfg.ProducerID, IdempotentID: iid, Values: pairs(values)}
	if p.cfg.MaxLen > 0 {
		args.MaxLen, args.Approx = p.cfg.MaxLen, true
	}
	return p.xadd(ctx, args)
}

// idmpWindow makes the stream keep idempotent ids for the dedup window
// (at most 24 h) and 10,000 ids per producer, once per stream and
// producer. XCFGSET clears the ids a stream keeps, so it is sent only when
// the stream keeps fewer, or for less long: the first producer sets it and
// the others find it set.
func (p *Producer) idmpWindow(ctx context.Context, key string) error {
	id := p.idem
	id.mu.Lock()
	done := id.idmpSet[key]
	id.mu.Unlock()
	if done {
		return nil
	}
	want := int64(min(p.cfg.DedupWindow, idmpMaxDuration) / time.Second)
	info, err := p.cfg.Redis.XInfoStream(ctx, key).Result()
	if err != nil {
		if errors.Is(err, redis.Nil) || strings.Contains(err.Error(), "no such key") {
			return redis.Nil // the stream is missing: as XADD NOMKSTREAM would say
		}
		return err
	}
	if info.IDMPDuration < want || info.IDMPMaxSize < idmpMaxSize {
		if err := p.cfg.Redis.XCfgSet(ctx, &redis.XCfgSetArgs{Stream: key, Duration: max(want, info.IDMPDuration),
			MaxSize: max(int64(idmpMaxSize), info.IDMPMaxSize)}).Err(); err != nil {
			return fmt.Errorf("membersdk: XCFGSET %s IDMP-DURATION %d IDMP-MAXSIZE %d: %w", key, want, idmpMaxSize, err)
		}
		p.log.Info("idempotent producer: set the stream's IDMP window", "stream", key, "seconds", want, "maxIdsPerProducer", idmpMaxSize)
	}
	id.mu.Lock()
	id.idmpSet[key] = true
	id.mu.Unlock()
	return nil
}

// hasTTL reports whether record has its TTL already.
func (id *idempotence) hasTTL(record string) bool {
	id.mu.Lock()
	defer id.mu.Unlock()
	_, ok := id.expiring[record]
	return ok
}

// noteTTL notes that a write to record ran (it has its TTL from then on:
// this write's or an earlier one's). A few records a window are live; past
// 1,024 the set starts again (a TTL sent twice costs one PEXPIRE).
func (id *idempotence) noteTTL(record string) {
	id.mu.Lock()
	defer id.mu.Unlock()
	if len(id.expiring) >= 1024 {
		clear(id.expiring)
	}
	id.expiring[record] = struct{}{}
}

// unpin forgets iid once an attempt's outcome is known.
func (p *Producer) unpin(iid string) {
	p.idem.mu.Lock()
	defer p.idem.mu.Unlock()
	delete(p.idem.pins, iid)
}

// pin remembers that an attempt of iid, of unknown outcome, went to key: a
// retry goes to the same shard even if the routing changed meanwhile (its
// dedup record would be there).
func (p *Producer) pin(iid, key string, shard int) {
	p.idem.mu.Lock()
	defer p.idem.mu.Unlock()
	if len(p.idem.pins) >= maxPins {
		cut := time.Now().Add(-p.cfg.DedupWindow / 2)
		for k, pn := range p.idem.pins {
			if pn.at.Before(cut) {
				delete(p.idem.pins, k)
			}
		}
		if len(p.idem.pins) >= maxPins {
			clear(p.idem.pins)
		}
	}
	if _, ok := p.idem.pins[iid]; !ok {
		p.idem.pins[iid] = pin{key: key, shard: shard, at: time.Now()}
	}
}
