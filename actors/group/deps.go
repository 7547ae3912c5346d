package group

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/persistence"
)

// Deps is what a group actor needs from its host: plain values, and the Node
// it reports to. One Deps is shared by all group actors of a node; everything
// in it is safe for concurrent use.
type Deps struct {
	Store       persistence.Store
	Provisioner persistence.Provisioner
	Rules       model.Config
	NodeID      string
	// Owner names this node incarnation in the store (persistence.OwnerName);
	// default NodeID.
	Owner string
	// IdlePassivation: a group no member occupies for this long passivates
	// (groups.idle-passivation). Zero: never.
	IdlePassivation time.Duration
	// Node is the node this group actor runs on (default NopNode).
	Node groupdeps.Node
	// Nudger pushes nudges to mailbox members whose assignment can grow
	// (default nopNudger: the mailbox is off).
	Nudger groupdeps.Nudger

	// Now is the node's one clock (host.Options.Now): every deadline a group
	// checks was set with it. Default time.Now; tests may replace it.
	Now func() time.Time
	// StoreTimeout bounds each store call made from inside an actor.
	StoreTimeout time.Duration
	Logger       *slog.Logger
	Metrics      groupdeps.Metrics

	// Receiver middleware of group and member actors; tests use them to make an
	// actor fail on purpose (supervision tests).
	groupHooks, memberHooks []actor.ReceiverMiddleware
	// memberProps: every member actor is spawned from these (withDefaults).
	memberProps *actor.Props
}

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
		c.Metrics = nopMetrics{}
	}
	if c.Owner == "" {
		c.Owner = c.NodeID
	}
	if c.Node == nil {
		c.Node = groupdeps.NopNode{}
	}
	if c.Nudger == nil {
		c.Nudger = nopNudger{}
	}
	c.memberProps = newMemberProps(c.Now, c.memberHooks...)
	return &c
}

// nopMetrics is a groupdeps.Metrics that records nothing: the default of Deps.Metrics.
type nopMetrics struct{}

func (nopMetrics) Heartbeat(string, time.Duration)              {}
func (nopMetrics) Persist(time.Duration, error)                 {}
func (nopMetrics) MemberExpired()                               {}
func (nopMetrics) MemberFenced()                                {}
func (nopMetrics) Activated()                                   {}
func (nopMetrics) Passivated()                                  {}
func (nopMetrics) Members(persistence.GroupKey, map[string]int) {}
func (nopMetrics) LimitRejected(string)                         {}
func (nopMetrics) RetainedTrimmed(int)                          {}

// nopNudger nudges nobody: the default of Deps.Nudger (the mailbox is off).
type nopNudger struct{}

func (nopNudger) Nudge(string, string, string, string) {}
