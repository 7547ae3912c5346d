package group

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/memberactor"
	"github.com/redisstream/coordinator/actors/groupstate"
	"github.com/redisstream/coordinator/persistence"
)

// Deps is what a group actor needs from its host: plain values, and the Node
// it reports to. One Deps is shared by all group actors of a node; everything
// in it is safe for concurrent use.
type Deps struct {
	Store       persistence.Store
	Provisioner persistence.Provisioner
	Rules       groupstate.Config
	NodeID      string
	// Owner names this node incarnation in the store (persistence.OwnerName);
	// default NodeID.
	Owner string
	// IdlePassivation: a group no member occupies for this long passivates
	// (groups.idle-passivation). Zero: never.
	IdlePassivation time.Duration
	// Node is the node this group actor runs on (default NopNode).
	Node Node
	// Now is the node's one clock (host.Options.Now): every deadline a group
	// checks was set with it. Default time.Now; tests may replace it.
	Now func() time.Time
	// StoreTimeout bounds each store call made from inside an actor.
	StoreTimeout time.Duration
	Logger       *slog.Logger
	Metrics      Metrics

	// Receiver middleware of group and member actors; tests use them to make an
	// actor fail on purpose (supervision tests).
	groupHooks, memberHooks []actor.ReceiverMiddleware
	// memberProps: every member actor is spawned from these (withDefaults).
	memberProps *actor.Props
}

// Metrics receives what the shell measures. Implementations must be cheap
// and safe for concurrent use.
type Metrics interface {
	Heartbeat(status string, d time.Duration)
	Persist(d time.Duration, err error)
	MemberExpired()
	MemberFenced()
	// Activated and Passivated count group activations and passivations.
	Activated()
	Passivated()
	// Members reports how many members of the group are in each state,
	// after every durable change of the group; nil counts: group gone.
	Members(key persistence.GroupKey, counts map[string]int)
	// LimitRejected counts one request refused by the limit named by its
	// config key (e.g. "limits.members-per-group").
	LimitRejected(limit string)
	// RetainedTrimmed counts expired/fenced members dropped before their
	// retention ended because of limits.retained-members-per-group.
	RetainedTrimmed(n int)
}

type noMetrics struct{}

func (noMetrics) Heartbeat(string, time.Duration)              {}
func (noMetrics) Persist(time.Duration, error)                 {}
func (noMetrics) MemberExpired()                               {}
func (noMetrics) MemberFenced()                                {}
func (noMetrics) Activated()                                   {}
func (noMetrics) Passivated()                                  {}
func (noMetrics) Members(persistence.GroupKey, map[string]int) {}
func (noMetrics) LimitRejected(string)                         {}
func (noMetrics) RetainedTrimmed(int)                          {}

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
	if c.Owner == "" {
		c.Owner = c.NodeID
	}
	if c.Node == nil {
		c.Node = NopNode{}
	}
	c.memberProps = memberactor.Props(c.Now, c.memberHooks...)
	return &c
}
