package persistence

import "errors"

// Sentinel errors. Implementations wrap them with context
// (fmt.Errorf("save group %s/%s: %w", ...)); callers test with errors.Is.
var (
	// ErrNotFound: the stream or group does not exist in the store.
	ErrNotFound = errors.New("persistence: not found")
	// ErrExists: CreateStream for a stream prefix that is already stored.
	ErrExists = errors.New("persistence: already exists")
	// ErrConflict: a revision compare-and-set failed (someone else wrote first),
	// or an update would move MetadataVersion backwards.
	ErrConflict = errors.New("persistence: revision conflict")
	// ErrFenced: a newer activation holds the group; the caller's activation is
	// stale and must stop answering for the group.
	ErrFenced = errors.New("persistence: fenced by a newer activation")
	// ErrUnavailable: the store could not be reached or did not answer in time.
	// The outcome of a write that returned it is unknown: it may or may not
	// have been applied. Callers must reload before trusting their state.
	ErrUnavailable = errors.New("persistence: store unavailable")
	// ErrReadOnly: the store answers but refuses writes (Redis READONLY: the
	// address is a replica now, e.g. after a failover; NOREPLICAS). Always
	// wrapped together with ErrUnavailable, which callers that do not care
	// why keep testing for.
	ErrReadOnly = errors.New("persistence: store refuses writes")
	// ErrNoPrimary: the store cannot say where its primary is (every Redis
	// Sentinel is unreachable). Always wrapped together with ErrUnavailable.
	ErrNoPrimary = errors.New("persistence: no Sentinel answers where the primary is")
	// ErrBehind: the store holds an older state than the caller's activation
	// (a newer activation epoch or revision than stored, or the group is gone
	// although the caller activated it): the store lost writes (FLUSHALL,
	// restart without persistence, failover to a lagging replica). Always
	// wrapped together with ErrFenced, ErrConflict or ErrNotFound.
	ErrBehind = errors.New("persistence: store is behind this activation (data lost)")
	// ErrUnsupportedFormat: a stored record was written in a newer layout
	// format than this build understands.
	ErrUnsupportedFormat = errors.New("persistence: unsupported stored format")
)
