package driver

import (
	"context"
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// Options configure the resharding driver (config keys resharding.*).
type Options struct {
	// RoutingGrace: how long after a routing change producers may still write
	// with the older routing (at least their routing cache lifetime). Removed
	// shards are retired no earlier. Default 60 s.
	RoutingGrace time.Duration
	// PollInterval: how often each node looks for migrations to drive.
	// Default 1 s.
	PollInterval time.Duration
	// RetiredRetention: how long a retired shard stream is kept (renamed)
	// before Redis expires it. Default 7 days.
	RetiredRetention time.Duration
	// History: finished migrations kept per stream. Default 20.
	History int
	// DriverLease: the driver lease of a stream's migration; another node
	// takes the migration over within about this long after its driver died.
	// Default 10 s.
	DriverLease time.Duration
	// HoldState (a failpoint for tests): the driver does not move a migration
	// out of this public state. Empty: off.
	HoldState string
}

// Defaults fills in the default of every field left zero.
func (o *Options) Defaults() {
	if o.RoutingGrace <= 0 {
		o.RoutingGrace = 60 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.RetiredRetention <= 0 {
		o.RetiredRetention = 7 * 24 * time.Hour
	}
	if o.History <= 0 {
		o.History = 20
	}
	if o.DriverLease <= 0 {
		o.DriverLease = 10 * time.Second
	}
}

// Metrics receives resharding events; implementations must be cheap and
// safe for concurrent use.
type Metrics interface {
	// MigrationState counts a migration of stream entering state.
	MigrationState(stream, state string)
}

// Node is what the driver needs from the node it runs on. Its methods are
// called from the driver's goroutines and must be safe for concurrent use.
type Node interface {
	// Store and Provisioner are the node's persistence.
	Store() persistence.Store
	Provisioner() persistence.Provisioner
	// Refusal is non-nil while this node refuses to serve (leaving,
	// evicted, a node conflict): such a node drives nothing.
	Refusal() error
	// NodeID is this node's id (recorded in a migration's history); Owner
	// is this node incarnation's name in the store (the driver lease's
	// holder).
	NodeID() string
	Owner() string
	// ResizeGroups tells every stored group of stream its shard set (count
	// consumed shards at metadataVersion, for migration); notConfirmed is
	// how many groups did not confirm, err the first failure.
	ResizeGroups(ctx context.Context, stream string, count int, metadataVersion int64, migration string) (notConfirmed int, err error)
	// Logger, Metrics (nil: none) and Now (the clock of recorded times).
	Logger() *slog.Logger
	Metrics() Metrics
	Now() time.Time
}
