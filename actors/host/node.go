package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redisstream/coordinator/actors/group"
	"github.com/redisstream/coordinator/persistence"
)

// node is this process's side of the node record: one renewal per confirm
// interval confirms every group activation of the node at once (see
// docs/RELIABILITY.md, "One confirmation per node"), and notices when the
// store lost its data (instance marker gone or changed, node record gone or
// its counter going backwards).
type node struct {
	h     *Host
	owner string
	ttl   time.Duration

	mu            sync.Mutex // one round at a time
	instance      string     // marker this node knows ("" before the first round)
	prevRenews    int64
	prevTakeovers int64
	lastOK        time.Time // start of the last successful round
	warned        bool      // this outage was logged at WARN (once per outage)
	left          bool      // leave ran: the node stopped, no more rounds
}

// errNodeLeft: a round after the node stopped (leave) renews nothing.
var errNodeLeft = errors.New("host: node stopped")

func newIncarnation() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// round renews the node record and tells every group actor of the node what
// it proves. It returns the renewal error, if any.
func (n *node) round(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.h
	if n.left {
		return errNodeLeft
	}
	start := h.opts.Now()
	st, err := h.opts.Store.RenewNode(ctx, persistence.NodeRenewal{
		Owner: n.owner, TTL: n.ttl,
		NewInstance:  persistence.Instance{ID: newIncarnation() + newIncarnation(), CreatedAt: start},
		Registration: h.registration(),
	})
	if err != nil {
		n.failed(start, err)
		return err
	}
	if n.warned {
		h.opts.Logger.Info("node record renewed again")
	}
	n.warned = false
	check := st.Takeovers != n.prevTakeovers
	lease := h.opts.Rules.LeaseTTL + h.opts.Rules.HeartbeatInterval
	switch {
	case n.instance == "":
		// First round of this process: nothing to compare with but the marker itself.
		switch {
		case h.opts.TrustEmptyStore:
		case st.InstanceCreated:
			created := st.Instance.CreatedAt // as stored: what other nodes count from
			if created.IsZero() {
				created = start
			}
			h.newDataSet(created, "the store held no coordinator instance marker")
		case st.Instance.CreatedAt.Add(lease).After(start):
			h.newDataSet(st.Instance.CreatedAt, "the store's instance marker was created "+st.Instance.CreatedAt.UTC().Format(time.RFC3339Nano)+", less than one lease ago")
		}
	case st.Instance.ID != n.instance:
		h.stateLost(lossMarkerChanged, fmt.Sprintf("the store's instance marker changed (%s, now %s): Redis was flushed, restarted without persistence, or replaced",
			n.instance, st.Instance.ID), start.Add(lease))
		check = true
	case st.Created && start.Sub(n.lastOK) > n.ttl:
		h.opts.Logger.Warn("this node's record expired while the node could not renew it; every group re-checks its activation",
			slog.Duration("unrenewedFor", start.Sub(n.lastOK)))
		check = true
	case st.Created:
		h.stateLost(lossRecordVanished, "this node's record vanished from the store before it could expire", start.Add(lease))
		check = true
	case st.Renews <= n.prevRenews:
		h.stateLost(lossRenewsBackwards, fmt.Sprintf("this node's renew counter went backwards (%d after %d): failover to a replica that missed writes?",
			st.Renews, n.prevRenews), start.Add(lease))
		check = true
	}
	n.instance, n.prevRenews, n.prevTakeovers, n.lastOK = st.Instance.ID, st.Renews, st.Takeovers, start
	h.reg.observe(st.Self, st.Peers, start)
	if h.clustered() {
		h.checkEvicted(st.Self, st.Peers)
	}
	msg := &group.NodeConfirmed{Start: start, Check: check}
	h.mu.Lock()
	for _, pid := range h.groups {
		h.system.Root.Send(pid, msg)
	}
	h.mu.Unlock()
	return nil
}

// failed logs a renewal that failed at start. Its groups keep answering for
// group.Validity after the last renewal that succeeded: a round that times out
// once on a busy store (the next one, a confirm interval later, succeeds)
// changes nothing a member sees and is logged at DEBUG. Once renewals have
// failed for Validity (or before the first one ever succeeded) the groups
// answer RETRY: that is logged once per outage at WARN.
func (n *node) failed(start time.Time, err error) {
	h := n.h
	if n.warned {
		return
	}
	if !n.lastOK.IsZero() && start.Sub(n.lastOK) < group.Validity(h.opts.Rules) {
		h.opts.Logger.Debug("a renewal of this node's record failed; its groups still answer until it has failed for the confirmation validity",
			slog.Any("err", err), slog.Duration("sinceLastRenewal", start.Sub(n.lastOK)))
		return
	}
	n.warned = true
	h.opts.Logger.Warn("cannot renew this node's record in the store; its groups answer RETRY until it can",
		slog.Any("err", err))
}

// verify runs a round now, before a group without stored state is served.
// An error (the store did not answer) means the node cannot tell a new group
// from one the store lost: the activation must not go on.
func (n *node) verify() error {
	ctx, cancel := context.WithTimeout(context.Background(), n.h.opts.RequestTimeout/2)
	defer cancel()
	return n.round(ctx)
}

// leave ends the node's rounds and removes its registration, so that a node
// that refuses to serve because of this one resumes at once rather than
// after this node's record expires. The node record is left to expire.
func (n *node) leave() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.left = true
	ctx, cancel := context.WithTimeout(context.Background(), n.h.opts.RequestTimeout/2)
	defer cancel()
	if err := n.h.opts.Store.Deregister(ctx, n.owner); err != nil {
		n.h.opts.Logger.Debug("could not remove this node's registration; it expires with the node record", slog.Any("err", err))
	}
}

func (n *node) loop() {
	every := group.ConfirmInterval(n.h.opts.Rules)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-n.h.done:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), every*2)
			_ = n.round(ctx)
			cancel()
		}
	}
}
