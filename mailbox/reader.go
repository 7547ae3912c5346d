package mailbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/authz"
	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// ErrConfig: the Reader's options are unusable; the message names the key.
var ErrConfig = errors.New("mailbox: invalid configuration")

// principal is one request stream and who its entries speak for.
type principal struct {
	name string // as in the key ("-" = member authentication off)
	key  string // its request stream
	// asked is what req.Principal is set to ("" when member
	// authentication is off, like an unauthenticated HTTP heartbeat).
	asked string
	// rights decides role and scopes; nil when member authentication is off.
	rights *authz.Principal
}

// Reader reads the request streams of this node's principals and answers
// them. Start it after the Service, stop it before the Service.
type Reader struct {
	rdb     redis.UniversalClient
	members coordinator.Members
	o       Options
	byKey   map[string]*principal
	// loops: the keys each blocking read covers (one read for every key
	// on a standalone Redis; one per key on Redis Cluster, whose
	// principals' keys live in different slots).
	loops [][]string
	clock redisClock
	trim  trimmer
	slots chan struct{} // bounds the requests handled at once

	cancel context.CancelFunc
	readers,
	inflight sync.WaitGroup
}

// New checks the options and returns a Reader; nothing is read before Start.
func New(rdb redis.UniversalClient, members coordinator.Members, o Options) (*Reader, error) {
	if err := o.fill(); err != nil {
		return nil, err
	}
	r := &Reader{rdb: rdb, members: members, o: o, byKey: map[string]*principal{}, slots: make(chan struct{}, o.Workers)}
	r.clock.rdb = rdb
	r.trim = trimmer{rdb: rdb, at: map[string]time.Time{}}
	auth := MemberAuth(o.Auth)
	users := map[string]config.User{}
	for _, u := range o.Auth.Users {
		users[u.Username] = u
	}
	var keys []string
	for _, name := range o.Principals {
		p := &principal{name: name, key: protocol.MailboxRequestsKey(o.KeyPrefix, name)}
		switch {
		case !auth:
			// Like HTTP with member authentication off: nobody is
			// authenticated, every member is open to every request.
		case name == protocol.MailboxNoAuthPrincipal:
			return nil, fmt.Errorf("%w: mailbox.principals lists %q, which means \"no member authentication\", but auth.users is set and auth.authenticate-member-api is on: list users instead", ErrConfig, name)
		default:
			u, ok := users[name]
			if !ok {
				return nil, fmt.Errorf("%w: mailbox.principals lists %q, which is not a user of auth.users", ErrConfig, name)
			}
			rights := authz.FromUser(u)
			p.rights, p.asked = &rights, name
		}
		if _, dup := r.byKey[p.key]; dup {
			return nil, fmt.Errorf("%w: mailbox.principals lists %q twice", ErrConfig, name)
		}
		r.byKey[p.key] = p
		keys = append(keys, p.key)
	}
	if _, cluster := rdb.(*redis.ClusterClient); cluster {
		for _, k := range keys {
			r.loops = append(r.loops, []string{k})
		}
	} else {
		r.loops = [][]string{keys}
	}
	return r, nil
}

// Start creates the consumer group on every request stream (idempotent)
// and starts reading. It returns once the groups exist.
func (r *Reader) Start(ctx context.Context) error {
	for key := range r.byKey {
		if err := r.ensureGroup(ctx, key); err != nil {
			return err
		}
	}
	rctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	for _, keys := range r.loops {
		r.readers.Add(1)
		go r.read(rctx, keys)
	}
	r.o.Logger.Info("mailbox reader started", "principals", len(r.byKey), "blockingReads", len(r.loops), "consumer", r.o.NodeID)
	return nil
}

// Stop stops reading (within mailbox.block), then waits until the requests
// already read are answered or ctx ends.
// A nil Reader, or one never started, stops at once; Stop may be called
// again.
func (r *Reader) Stop(ctx context.Context) {
	if r == nil || r.cancel == nil {
		return
	}
	r.cancel()
	done := make(chan struct{})
	go func() { r.readers.Wait(); r.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		r.o.Logger.Warn("mailbox reader: requests in flight were not answered before shutdown; their members retry")
	}
}

func (r *Reader) ensureGroup(ctx context.Context, key string) error {
	err := r.rdb.XGroupCreateMkStream(ctx, key, Group, "$").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return fmt.Errorf("mailbox: creating consumer group %q on %s: %w", Group, key, err)
	}
	return nil
}

// read is one blocking-read loop over keys.
func (r *Reader) read(ctx context.Context, keys []string) {
	defer r.readers.Done()
	streams := make([]string, 0, 2*len(keys))
	streams = append(streams, keys...)
	for range keys {
		streams = append(streams, ">")
	}
	args := &redis.XReadGroupArgs{Group: Group, Consumer: r.o.NodeID, Streams: streams, Count: int64(r.o.Batch), Block: r.o.Block, NoAck: true}
	for ctx.Err() == nil {
		res, err := r.rdb.XReadGroup(ctx, args).Result()
		if err != nil {
			if errors.Is(err, redis.Nil) || ctx.Err() != nil {
				continue
			}
			r.readFailed(ctx, keys, err)
			continue
		}
		readAt := time.Now()
		now := r.clock.now(ctx, readAt)
		for _, s := range res {
			p := r.byKey[s.Stream]
			if p == nil || len(s.Messages) == 0 {
				continue
			}
			for _, m := range s.Messages {
				r.dispatch(p, m, readAt, now)
			}
			r.trim.consumed(ctx, s.Stream, s.Messages[len(s.Messages)-1].ID, readAt)
		}
	}
}

// readFailed logs a failed read, recreates the consumer groups when a
// stream or its group is gone (NOGROUP: the key was deleted), and waits a
// little before the next read.
func (r *Reader) readFailed(ctx context.Context, keys []string, err error) {
	if strings.HasPrefix(err.Error(), "NOGROUP") {
		r.o.Logger.Warn("mailbox: a request stream or its consumer group is gone; recreating them", "err", err)
		for _, k := range keys {
			if gerr := r.ensureGroup(ctx, k); gerr != nil {
				r.o.Logger.Warn("mailbox: recreating a consumer group failed", "key", k, "err", gerr)
			}
		}
		return
	}
	r.o.Logger.Warn("mailbox: reading request streams failed; members get no reply until Redis answers again", "err", err)
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
}

// dispatch handles one entry on a worker; it waits for a free one, so a
// node never holds more than Options.Workers requests.
func (r *Reader) dispatch(p *principal, m redis.XMessage, readAt, redisNow time.Time) {
	r.slots <- struct{}{}
	r.inflight.Add(1)
	go func() {
		defer func() { <-r.slots; r.inflight.Done() }()
		r.serve(p, m, readAt, redisNow)
	}()
}
