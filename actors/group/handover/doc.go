// Package handover holds the record a group activation that gives its group up gracefully
// stores with its release: its members' timers (groupstate.Lease) as offsets from the
// release (Encode), turned back into leases by the next activation (Decode). Pure: it
// imports groupstate only.
package handover
