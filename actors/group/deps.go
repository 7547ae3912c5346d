package group

import (
	"log/slog"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/persistence"
)

// Deps is what a group actor needs from its host. One Deps is shared by all
// group actors of a node; everything in it is safe for concurrent use.
type Deps struct {
	Store       persistence.Store
	Provisioner persistence.Provisioner
	Rules       groupstate.Config
	NodeID      string
	// Now is the clock; tests may replace it.
	Now func() time.Time
	// StoreTimeout bounds each store call made from inside an actor.
	StoreTimeout time.Duration
	Logger       *slog.Logger
	Metrics      Metrics
	// OnStop is called when a group actor stops for good (deleted, or fenced
	// by a newer activation) so the host can forget its PID.
	OnStop func(key persistence.GroupKey)
}

// Metrics receives what the shell measures. Implementations must be cheap
// and safe for concurrent use.
type Metrics interface {
	Heartbeat(status string, d time.Duration)
	Persist(d time.Duration, err error)
	MemberExpired()
	MemberFenced()
	// Members reports how many members of the group are in each state,
	// after every durable change of the group; nil counts: group gone.
	Members(key persistence.GroupKey, counts map[string]int)
	// LimitRejected counts one request refused by the limit named by its
	// config key (e.g. "limits.members-per-group").
	LimitRejected(limit string)
}

type noMetrics struct{}

func (noMetrics) Heartbeat(string, time.Duration)              {}
func (noMetrics) Persist(time.Duration, error)                 {}
func (noMetrics) MemberExpired()                               {}
func (noMetrics) MemberFenced()                                {}
func (noMetrics) Members(persistence.GroupKey, map[string]int) {}
func (noMetrics) LimitRejected(string)                         {}

func (d *Deps) withDefaults() *Deps {
	c := *d
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.StoreTimeout <= 0 {
		c.StoreTimeout = 3 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Metrics == nil {
		c.Metrics = noMetrics{}
	}
	if c.OnStop == nil {
		c.OnStop = func(persistence.GroupKey) {}
	}
	return &c
}
