package group

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

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
	// Owner names this node incarnation in the store (persistence.OwnerName);
	// default NodeID.
	Owner string
	// IdlePassivation: a group no member occupies for this long passivates
	// (groups.idle-passivation). Zero: never.
	IdlePassivation time.Duration
	// Hold returns until when the group's grants are held because the store
	// lost state: the node-wide hold, or one recorded for this group alone
	// (zero: no hold).
	Hold func(key persistence.GroupKey) time.Time
	// StateLost reports that the store was found behind (lost writes); the
	// node holds grants for a lease (see docs/RELIABILITY.md).
	StateLost func(reason string)
	// GroupStateLost reports a hold of one group only (a member reported an
	// epoch and shards a new, empty group does not know).
	GroupStateLost func(key persistence.GroupKey, kind, reason string, until time.Time)
	// PlacementMoved reports whether the cluster recently gained a node, so
	// that a newer activation elsewhere is the placement following it (a
	// normal move, logged at INFO) rather than a duplicate (WARN). Default false.
	PlacementMoved func() bool
	// DataSet returns what the node knows about a young store data set (zero
	// if the data set is older than a lease, or store.trust-empty-store).
	DataSet func() NewDataSet
	// VerifyStore is called before a group with no stored state is served: it
	// checks (one round trip) that the store is the data set the node knows,
	// so that a flush is noticed before a new group hands shards out.
	VerifyStore func() error
	// Now is the clock; tests may replace it.
	Now func() time.Time
	// StoreTimeout bounds each store call made from inside an actor.
	StoreTimeout time.Duration
	Logger       *slog.Logger
	Metrics      Metrics
	// OnStop is called when a group actor stops for good (deleted, or fenced
	// by a newer activation) so the host can forget its PID.
	OnStop func(key persistence.GroupKey, self *actor.PID)
	// OnStart is called when a group actor starts (also a cluster grain the
	// host did not spawn itself), so the host can reach its local groups.
	OnStart func(key persistence.GroupKey, self *actor.PID)
	// Refusing returns why this node must not host a group now (shutting
	// down, evicted, sharing its store with a node outside its cluster);
	// "" when it may. A group actor started then stops without activating.
	Refusing func() string

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
	if c.Hold == nil {
		c.Hold = func(persistence.GroupKey) time.Time { return time.Time{} }
	}
	if c.StateLost == nil {
		c.StateLost = func(string) {}
	}
	if c.GroupStateLost == nil {
		c.GroupStateLost = func(persistence.GroupKey, string, string, time.Time) {}
	}
	if c.PlacementMoved == nil {
		c.PlacementMoved = func() bool { return false }
	}
	if c.DataSet == nil {
		c.DataSet = func() NewDataSet { return NewDataSet{} }
	}
	if c.VerifyStore == nil {
		c.VerifyStore = func() error { return nil }
	}
	if c.Refusing == nil {
		c.Refusing = func() string { return "" }
	}
	if c.OnStart == nil {
		c.OnStart = func(persistence.GroupKey, *actor.PID) {}
	}
	if c.OnStop == nil {
		c.OnStop = func(persistence.GroupKey, *actor.PID) {}
	}
	c.memberProps = newMemberProps(&c)
	return &c
}
