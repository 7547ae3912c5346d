package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/persistence"
)

// renewal is this process's side of the node record: one renewal per confirm
// interval confirms every group activation of the node at once (see
// docs/RELIABILITY.md, "One confirmation per node"), and notices when the
// store lost its data (instance marker gone or changed, node record gone or
// its counter going backwards).
type renewal struct {
	ttl time.Duration

	mu            sync.Mutex // one round at a time
	instance      string     // marker this node knows ("" before the first round)
	prevRenews    int64
	prevTakeovers int64
	lastOK        time.Time              // start of the last successful round
	warned        bool                   // this outage was logged at WARN (once per outage)
	readOnly      atomic.Pointer[string] // why the store refused the last renewal's write (nil: it did not)
	left          bool                   // Leave ran: the node stopped, no more rounds
}

// ErrLeft: a round after the node stopped (Leave) renews nothing.
var ErrLeft = errors.New("node: stopped")

// Round renews the node record and tells every group actor of the node what
// it proves. It returns the renewal error, if any.
func (n *Node) Round(ctx context.Context) error {
	r := &n.ren
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.left {
		return ErrLeft
	}
	o := n.opts
	start := o.Now()
	st, err := o.Store.RenewNode(ctx, persistence.NodeRenewal{
		Owner: n.owner, TTL: r.ttl,
		NewInstance:  persistence.Instance{ID: newIncarnation() + newIncarnation(), CreatedAt: start},
		Registration: n.registration(),
	})
	if err != nil {
		n.failed(start, err)
		return err
	}
	if r.warned {
		o.Logger.Info("node record renewed again")
	}
	r.warned = false
	r.readOnly.Store(nil)
	check := st.Takeovers != r.prevTakeovers
	lease := n.lease()
	switch {
	case r.instance == "":
		// First round of this process: nothing to compare with but the marker itself.
		switch {
		case o.TrustEmptyStore:
		case st.InstanceCreated:
			created := st.Instance.CreatedAt // as stored: what other nodes count from
			if created.IsZero() {
				created = start
			}
			n.newDataSet(created, "the store held no coordinator instance marker")
		case st.Instance.CreatedAt.Add(lease).After(start):
			n.newDataSet(st.Instance.CreatedAt, "the store's instance marker was created "+st.Instance.CreatedAt.UTC().Format(time.RFC3339Nano)+", less than one lease ago")
		}
	case st.Instance.ID != r.instance:
		n.stateLost(LossMarkerChanged, fmt.Sprintf("the store's instance marker changed (%s, now %s): Redis was flushed, restarted without persistence, or replaced",
			r.instance, st.Instance.ID), start.Add(lease))
		check = true
	case st.Created && start.Sub(r.lastOK) > r.ttl:
		o.Logger.Warn("this node's record expired while the node could not renew it; every group re-checks its activation",
			slog.Duration("unrenewedFor", start.Sub(r.lastOK)))
		check = true
	case st.Created:
		n.stateLost(LossRecordVanished, "this node's record vanished from the store before it could expire", start.Add(lease))
		check = true
	case st.Renews <= r.prevRenews:
		n.stateLost(LossRenewsBackwards, fmt.Sprintf("this node's renew counter went backwards (%d after %d): failover to a replica that missed writes?",
			st.Renews, r.prevRenews), start.Add(lease))
		check = true
	}
	r.instance, r.prevRenews, r.prevTakeovers, r.lastOK = st.Instance.ID, st.Renews, st.Takeovers, start
	n.reg.observe(st.Self, st.Peers, start)
	if o.Cluster != nil {
		n.checkEvicted(st.Self, st.Peers)
	}
	o.Groups.Broadcast(&group.NodeConfirmed{Start: start, Check: check})
	return nil
}

// failed logs a renewal that failed at start. Its groups keep answering for
// group.Validity after the last renewal that succeeded: a round that times out
// once on a busy store (the next one, a confirm interval later, succeeds)
// changes nothing a member sees and is logged at DEBUG. Once renewals have
// failed for Validity (or before the first one ever succeeded) the groups
// answer RETRY: that is logged once per outage at WARN.
func (n *Node) failed(start time.Time, err error) {
	r := &n.ren
	if errors.Is(err, persistence.ErrReadOnly) {
		why := err.Error()
		r.readOnly.Store(&why)
		n.opts.Metrics.StoreReadOnly()
	} else {
		r.readOnly.Store(nil)
	}
	if r.warned {
		return
	}
	if !r.lastOK.IsZero() && start.Sub(r.lastOK) < group.Validity(n.opts.Rules) {
		n.opts.Logger.Debug("a renewal of this node's record failed; its groups still answer until it has failed for the confirmation validity",
			slog.Any("err", err), slog.Duration("sinceLastRenewal", start.Sub(r.lastOK)))
		return
	}
	r.warned = true
	if errors.Is(err, persistence.ErrNoPrimary) {
		n.opts.Logger.Error("no Sentinel of redis.sentinel.addrs answers, so the Redis primary cannot be found; its groups answer RETRY "+
			"until one does (members keep their shards within their leases). Check that the Sentinels run and are reachable",
			slog.Any("err", err))
		return
	}
	if errors.Is(err, persistence.ErrReadOnly) {
		n.opts.Logger.Warn("Redis answers but refuses writes: the address this node reaches is a replica now (a failover moved the primary) "+
			"or has too few replicas; its groups answer RETRY and readiness fails until a write succeeds. With redis.sentinel the client "+
			"follows failovers by itself; with redis.addrs point it at the primary (a DNS name that moves with it is followed at the next connection)",
			slog.Any("err", err))
		return
	}
	n.opts.Logger.Warn("cannot renew this node's record in the store; its groups answer RETRY until it can",
		slog.Any("err", err))
}

// StoreReadOnly is why the store refused this node's last renewal because it
// takes no writes (Redis READONLY or NOREPLICAS), or "" when it did not.
func (n *Node) StoreReadOnly() string {
	if why := n.ren.readOnly.Load(); why != nil {
		return *why
	}
	return ""
}

// verify runs a round now (VerifyStore).
func (n *Node) verify() error {
	ctx, cancel := context.WithTimeout(context.Background(), n.opts.StoreTimeout)
	defer cancel()
	return n.Round(ctx)
}

// Leave ends the node's rounds and removes its registration, so that a node
// that refuses to serve because of this one resumes at once rather than
// after this node's record expires. The node record is left to expire.
func (n *Node) Leave() {
	r := &n.ren
	r.mu.Lock()
	defer r.mu.Unlock()
	r.left = true
	ctx, cancel := context.WithTimeout(context.Background(), n.opts.StoreTimeout)
	defer cancel()
	if err := n.opts.Store.Deregister(ctx, n.owner); err != nil {
		n.opts.Logger.Debug("could not remove this node's registration; it expires with the node record", slog.Any("err", err))
	}
}

// Loop runs a round every confirm interval until done is closed.
func (n *Node) Loop(done <-chan struct{}) {
	every := group.ConfirmInterval(n.opts.Rules)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), every*2)
			_ = n.Round(ctx)
			cancel()
		}
	}
}
