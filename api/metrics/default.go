package metrics

// Package-level shortcuts on Default, for the actors.

// PersistDuration records one store write on Default.
func PersistDuration(seconds float64) { Default.PersistDuration(seconds) }

// PersistError counts one failed store write on Default.
func PersistError() { Default.PersistError() }

// SetGroupsActive sets the group activations on this node on Default.
func SetGroupsActive(n int) { Default.SetGroupsActive(n) }

// MembersByState sets one group's member counts by state on Default.
func MembersByState(streamPrefix, group string, counts map[string]int) {
	Default.MembersByState(streamPrefix, group, counts)
}

// ForgetGroup drops one group's member series on Default.
func ForgetGroup(streamPrefix, group string) { Default.ForgetGroup(streamPrefix, group) }

// LeaseExpired counts one expired lease on Default.
func LeaseExpired() { Default.LeaseExpired() }

// MemberFenced counts one fenced member on Default.
func MemberFenced() { Default.MemberFenced() }
