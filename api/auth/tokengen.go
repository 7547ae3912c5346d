package auth

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Token revocation. Every user has a token generation in the store (0 until
// first revoked); a token carries its user's generation at issue (the gen
// claim, tokens.go) and is refused once the stored generation is higher.
// POST /coord/v1/auth/users/{username}/revoke-tokens bumps it
// (handlers_revoke.go). A password change or a removed user needs none of
// this: the token's cred claim no longer matches (tokens.go).
//
// Each node keeps the generations of every revoked user in memory and
// reads them again (one HGETALL) when a bearer request finds them older
// than half of the revocation window (auth.token-revocation-window), in
// the background; the request goes on with what is known. The node that
// revokes updates its copy at once. So a revoked token is refused on the
// revoking node at once and on the others within the window (while the
// store answers): a request that finds the copy older than the window
// waits for a fresh read (up to tokenGenWait).
//
// When the store cannot answer, the copy goes stale, and:
//
//   - WRITE and ADMIN routes fail closed: a bearer token is refused 503
//     STORE_UNAVAILABLE while the copy is older than the window (those
//     routes need the store anyway; Basic credentials are not affected);
//   - every other route — READ, producer routing and member heartbeats —
//     fails open: the last generations read stay in force, so members are
//     not dropped because Redis blipped, and a token revoked during the
//     outage works on those routes of other nodes until the store answers
//     again. A node that never read the generations (started during the
//     outage) waits tokenGenWait once per request for a read, then knows
//     of no revocation.

// TokenGenerations is the store of per-user token generations
// (persistence.TokenGenerations, its errors mapped to coordinator.ErrUnavailable).
type TokenGenerations interface {
	TokenGenerations(ctx context.Context) (map[string]int64, error)
	RevokeTokens(ctx context.Context, user string) (int64, error)
}

// The revocation window (auth.token-revocation-window, default 10 s) is set per
// server; a copy older than half of it is read again in the background.
const (
	tokenGenWait  = time.Second // how long a request waits for that read
	TokenGenRetry = time.Second // at most one read per second while the store fails
)

type tokenGens struct {
	store TokenGenerations
	stale time.Duration // auth.token-revocation-window: older, strict routes wait for a read, or refuse
	now   func() time.Time
	log   *slog.Logger
	fail  func() // counts a failed read (metric)

	mu       sync.Mutex
	gens     map[string]int64
	loadedAt time.Time     // start of the last successful read (zero: never)
	lastTry  time.Time     // start of the last read
	inflight chan struct{} // closed when the running read ends; nil if none
	failing  bool          // the last read failed (log once per outage)
}

func newTokenGens(store TokenGenerations, window time.Duration, now func() time.Time, log *slog.Logger, fail func()) *tokenGens {
	return &tokenGens{store: store, stale: window, now: now, log: log, fail: fail, gens: map[string]int64{}}
}

// generation is user's generation as known here, and whether that is from
// a read within the revocation window. strict waits for a read when it is
// not.
func (t *tokenGens) generation(user string, strict bool) (int64, bool) {
	t.mu.Lock()
	now := t.now()
	fresh := !t.loadedAt.IsZero() && now.Sub(t.loadedAt) < t.stale
	if (t.loadedAt.IsZero() || now.Sub(t.loadedAt) >= t.stale/2) && t.inflight == nil && now.Sub(t.lastTry) >= TokenGenRetry {
		t.startRead(now)
	}
	done := t.inflight
	// Fail open: a route that is not strict waits for a read only while
	// the store answers (a copy too old but no failed read), or before
	// the first read.
	if fresh || done == nil || (!strict && !t.loadedAt.IsZero() && t.failing) {
		g := t.gens[user]
		t.mu.Unlock()
		return g, fresh
	}
	t.mu.Unlock()
	select {
	case <-done:
	case <-time.After(tokenGenWait):
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gens[user], !t.loadedAt.IsZero() && t.now().Sub(t.loadedAt) < t.stale
}

// startRead reads the generations in the background. Callers hold t.mu.
func (t *tokenGens) startRead(now time.Time) {
	done := make(chan struct{})
	t.inflight, t.lastTry = done, now
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), tokenGenWait)
		gens, err := t.store.TokenGenerations(ctx)
		cancel()
		t.mu.Lock()
		defer t.mu.Unlock()
		t.inflight = nil
		if err != nil {
			t.fail()
			if !t.failing {
				t.log.Warn("cannot read token generations: admin routes refuse bearer tokens once the last read is older than "+t.stale.String()+", other routes go on with the last generations read",
					slog.Any("err", err))
			}
			t.failing = true
			return
		}
		if t.failing {
			t.log.Info("token generations read again")
		}
		t.failing = false
		t.merge(gens)
		t.loadedAt = now
	}()
}

// merge keeps the higher generation of each user: a read that started
// before a revocation on this node must not undo it here.
func (t *tokenGens) merge(gens map[string]int64) {
	for u, g := range gens {
		if g > t.gens[u] {
			t.gens[u] = g
		}
	}
}

// revoke bumps user's generation in the store and here.
func (t *tokenGens) revoke(ctx context.Context, user string) (int64, error) {
	g, err := t.store.RevokeTokens(ctx, user)
	if err != nil {
		return 0, err
	}
	t.mu.Lock()
	t.merge(map[string]int64{user: g})
	t.mu.Unlock()
	return g, nil
}
