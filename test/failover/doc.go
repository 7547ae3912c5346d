// Package failover tests Redis failovers end to end with real processes: a
// primary, replicas and Sentinels (redis-server --sentinel), a coordinator
// and SDK members and producers that know Redis only by its Sentinels
// (docs/OPERATIONS.md, Redis high availability; docs/RELIABILITY.md, Redis
// failover). Its own package so that it runs beside the other end-to-end
// suites rather than lengthening one of them.
package failover
