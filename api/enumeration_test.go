package api

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/api/auth"
)

// countChecks counts bcrypt checks and simulated ones (waits instead of a
// check) for the rest of the test.
func countChecks(t *testing.T) (checks, waits *atomic.Int64) {
	checks, waits = new(atomic.Int64), new(atomic.Int64)
	origCompare, origWait := auth.BcryptCompare, auth.WaitLikeCheck
	auth.BcryptCompare = func(h, p []byte) error { checks.Add(1); return origCompare(h, p) }
	auth.WaitLikeCheck = func(d time.Duration) { waits.Add(1); require.Positive(t, d, "the time of a real check") }
	t.Cleanup(func() { auth.BcryptCompare, auth.WaitLikeCheck = origCompare, origWait })
	return checks, waits
}

// TestUnknownNamesAnswerLikeKnownOnes: on every path — an unlocked
// address, a locked one, a name whose own bucket is empty — an unknown
// name gets the same status as a known one with a wrong password, and
// costs the same time: a bcrypt check, or (unknown at a locked address) a
// wait as long as one, without the CPU.
func TestUnknownNamesAnswerLikeKnownOnes(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.FailedAuthPerAddressRate, cfg.Auth.FailedAuthPerAddressBurst = 0.001, 6
	cfg.Auth.FailedAuthPerUserRate, cfg.Auth.FailedAuthPerUserBurst = 0.001, 2
	h := newHarness(t, cfg, WithClock(newClock().Now))
	checks, waits := countChecks(t)
	try := func(user string) (status int, cost string) {
		c, w := checks.Load(), waits.Load()
		status = h.do("GET", groupsPath, "", "Authorization", basic(user, "wrong")).status
		switch {
		case checks.Load() > c:
			cost = "check"
		case waits.Load() > w:
			cost = "check" // as long as one
		default:
			cost = "none"
		}
		return status, cost
	}
	type answer struct {
		status int
		cost   string
	}
	seq := func(user string, n int) []answer {
		var out []answer
		for i := 0; i < n; i++ {
			s, c := try(user)
			out = append(out, answer{s, c})
		}
		return out
	}
	// Unlocked address: two checked failures, then the name's own bucket is empty.
	want := []answer{{401, "check"}, {401, "check"}, {429, "none"}}
	require.Equal(t, want, seq("grafana", 3), "known")
	require.Equal(t, want, seq("nobody", 3), "unknown")
	// Two more failures lock the address (burst 6).
	require.Equal(t, []answer{{401, "check"}, {401, "check"}}, seq("dash", 2))
	// Locked address: a fresh known name and a fresh unknown one cost the same.
	require.Equal(t, []answer{{429, "check"}, {429, "check"}, {429, "none"}}, seq("admin", 3), "known, locked address")
	require.Equal(t, []answer{{429, "check"}, {429, "check"}, {429, "none"}}, seq("nobody-else", 3), "unknown, locked address")
	require.Equal(t, int64(2), waits.Load(), "the unknown name at a locked address waited instead of spending bcrypt")
}

// TestVerifiedPasswordCacheExpires: a right password is checked with
// bcrypt once, then remembered for verifiedTTL only.
func TestVerifiedPasswordCacheExpires(t *testing.T) {
	clock := newClock()
	h := newHarness(t, authConfig(t), WithClock(clock.Now))
	checks, _ := countChecks(t)
	cost := func() int64 {
		before := checks.Load()
		require.Equal(t, 200, h.do("GET", groupsPath, "", "Authorization", basic("grafana", "grafana-pass")).status)
		return checks.Load() - before
	}
	require.Equal(t, int64(1), cost(), "first use")
	require.Equal(t, int64(0), cost(), "remembered")
	clock.Advance(auth.VerifiedTTL - time.Second)
	require.Equal(t, int64(0), cost(), "still remembered")
	clock.Advance(time.Second)
	require.Equal(t, int64(1), cost(), fmt.Sprint("forgotten after ", auth.VerifiedTTL))
	require.LessOrEqual(t, h.srv.guard.CachedPasswords(), len(authConfig(t).Auth.Users), "at most one entry per configured user")
}
