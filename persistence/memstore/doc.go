// Package memstore is an in-memory persistence.Store and
// persistence.Provisioner with the same semantics as redisstore, for unit
// tests of the coordinator shell. It adds test hooks: SetUnavailable to
// simulate an outage, and write counters to assert that steady state writes
// nothing.
package memstore
