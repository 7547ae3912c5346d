package config

import (
	"fmt"
	"math"
	"time"
)

// validateFailureLimits checks the failed-credential limits (auth.failed-auth-*).
func (a Auth) validateFailureLimits(bad func(key string, value any, format string, args ...any)) {
	for _, k := range []struct {
		key  string
		rate float64
	}{{"auth.failed-auth-per-address-rate", a.FailedAuthPerAddressRate}, {"auth.failed-auth-per-user-rate", a.FailedAuthPerUserRate}} {
		if math.IsNaN(k.rate) || math.IsInf(k.rate, 0) || !(k.rate > 0) {
			bad(k.key, k.rate, "must be a number greater than 0 (failed credentials regained per second)")
		}
	}
	if a.FailedAuthPerAddressBurst < 1 {
		bad("auth.failed-auth-per-address-burst", a.FailedAuthPerAddressBurst, "must be at least 1")
	}
	if a.FailedAuthPerUserBurst < 1 {
		bad("auth.failed-auth-per-user-burst", a.FailedAuthPerUserBurst, "must be at least 1")
	}
}

// validGroupScopes checks auth.users[i].groups.
func validGroupScopes(i int, groups []string, bad func(key string, value any, format string, args ...any)) {
	for j, p := range groups {
		if err := validStreamScope(p); err != nil {
			bad(fmt.Sprintf("auth.users[%d].groups[%d]", i, j), p, "%v (a consumer group name, a name followed by '*', or '*')", err)
		}
	}
}

// validateRefusals checks audit.refusal-window and audit.refusal-addresses.
func (au Audit) validateRefusals(bad func(key string, value any, format string, args ...any)) {
	if au.RefusalWindow < time.Second || au.RefusalWindow > time.Hour {
		bad("audit.refusal-window", au.RefusalWindow, "must be between 1s and 1h")
	}
	if n := au.RefusalAddresses; n < 1 || n > 1_000_000 {
		bad("audit.refusal-addresses", n, "must be between 1 and 1000000")
	}
}
