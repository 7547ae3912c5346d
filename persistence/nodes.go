package persistence

import (
	"context"
	"time"
)

// Nodes is the part of the store that lets one node confirm all of its
// group activations with one round trip (instead of one read per group), and
// lets the node notice when the store lost its data. See docs/RELIABILITY.md
// ("One confirmation per node") for the safety argument.
//
// A node incarnation (one process run) is named by an owner string
// "nodeId/incarnation"; that string is what Activate records as the owner.
type Nodes interface {
	// RenewNode renews the node record of r.Owner (expires after r.TTL
	// unless renewed; created if missing) and reads the store's instance
	// marker, creating it as r.NewInstance if none exists, in one atomic step.
	// The caller compares the answer with what it saw before.
	RenewNode(ctx context.Context, r NodeRenewal) (NodeStatus, error)
	// NotifyTakeover bumps the takeovers counter of owner's node record, if
	// the record exists (alive reports whether it did). The owner's next
	// renewal sees the change and re-checks its activations.
	NotifyTakeover(ctx context.Context, owner string) (alive bool, err error)
	// Deregister removes owner's registration (NodeRenewal.Registration) so
	// that other nodes stop seeing it at once, not only after its TTL. The
	// node record itself is left to expire: its expiry is what fences the
	// owner's activations. A missing registration is not an error.
	Deregister(ctx context.Context, owner string) error
	// NodeAlive reports whether owner's node record exists.
	NodeAlive(ctx context.Context, owner string) (bool, error)
	// ClearTakeover forgets the previous owners Activate returned in
	// GroupSnapshot.Fenced, once the caller (still holding activationEpoch)
	// has notified them. ErrFenced if a newer activation exists.
	ClearTakeover(ctx context.Context, key GroupKey, activationEpoch int64) error
	// ReleaseActivation clears the owner of the group iff activationEpoch is
	// still the latest (a passivating activation gives the group up, so the
	// next activation need not wait), and in the same atomic step stores
	// handover (opaque; nil or empty: none) tagged with activationEpoch and
	// the store's clock, replacing any stored before. The next Activate
	// returns it in GroupSnapshot.Handover if it directly follows this
	// activation. Fenced or missing groups: nil, nothing stored.
	ReleaseActivation(ctx context.Context, key GroupKey, activationEpoch int64, handover []byte) error

	// MarkLive adds the group to the index of groups that have members still
	// in the target or holding shards, tagged with activationEpoch.
	MarkLive(ctx context.Context, key GroupKey, activationEpoch int64) error
	// UnmarkLive removes the group from that index unless a newer
	// activation (a higher epoch) marked it.
	UnmarkLive(ctx context.Context, key GroupKey, activationEpoch int64) error
	// Orphans lists indexed groups no live node holds: owner empty, or
	// owner's node record gone, or owner a different incarnation of node
	// nodeID (a node id runs one process at a time). Sorted.
	Orphans(ctx context.Context, nodeID string) ([]GroupKey, error)
}

// NodeRenewal is the input of RenewNode.
type NodeRenewal struct {
	Owner       string
	TTL         time.Duration
	NewInstance Instance
	// Registration is what the node tells the other nodes on the same key
	// prefix about itself (the node registry). Owner, RegisteredAt and
	// RenewedAt are set by the store; an empty NodeID is taken from Owner.
	Registration NodeRegistration
}

// NodeRegistration is one node incarnation's entry in the node registry:
// every node renewing under the same key prefix sees every other live one,
// so that nodes that share a store without forming one cluster find each
// other (actors/node/registry.go). An entry lives exactly as long as the
// node record (TTL of the last renewal) unless the node deregisters.
type NodeRegistration struct {
	Owner       string // "nodeId/incarnation"
	NodeID      string
	ClusterName string
	Provider    string // cluster.provider: single, automanaged, …
	Address     string // advertised cluster address ("" for single)
	// Refusing: the node refuses (or is about to refuse) to serve because of
	// an earlier node it conflicts with. Other nodes do not refuse because of
	// it: it does not serve, so it takes no activation from them.
	Refusing bool
	// MemberID is the node's actor-cluster member id ("" for single), and
	// Blocked the member ids it has evicted from its cluster: a node that
	// most of its peers evicted learns it from their entries (protoactor
	// does not tell the evicted node) and exits.
	MemberID string
	Blocked  []string
	// RegisteredAt is the store's clock when this entry was created (the
	// first renewal of the incarnation, or the first after the entry
	// expired); RenewedAt is the store's clock at its latest renewal. One
	// clock for every node, so comparing entries of different nodes is fair.
	RegisteredAt time.Time
	RenewedAt    time.Time
}

// Before reports whether r registered before o: earlier RegisteredAt, ties
// broken by owner string. It is a strict total order over live entries.
func (r NodeRegistration) Before(o NodeRegistration) bool {
	if !r.RegisteredAt.Equal(o.RegisteredAt) {
		return r.RegisteredAt.Before(o.RegisteredAt)
	}
	return r.Owner < o.Owner
}

// Instance is the store's instance marker: created once per data set, so a
// data set that was flushed or replaced is recognised by a new ID.
type Instance struct {
	ID        string
	CreatedAt time.Time
}

// NodeStatus is what RenewNode found.
type NodeStatus struct {
	// Renews is the record's renew counter after this renewal.
	Renews int64
	// Takeovers is the record's takeovers counter.
	Takeovers int64
	// Created: the record did not exist before this renewal (first renewal,
	// expired, or lost).
	Created bool
	// Instance is the marker now stored; InstanceCreated: this call created
	// it (none existed).
	Instance        Instance
	InstanceCreated bool
	// Self is this node's registration as stored (with the store's
	// RegisteredAt and RenewedAt); Peers are the registrations of every
	// other live node under the same key prefix, sorted by owner.
	Self  NodeRegistration
	Peers []NodeRegistration
}

// OwnerName is the owner string of a node incarnation.
func OwnerName(nodeID, incarnation string) string { return nodeID + "/" + incarnation }

// OwnerNode returns the node id part of an owner string.
func OwnerNode(owner string) string {
	for i := len(owner) - 1; i >= 0; i-- {
		if owner[i] == '/' {
			return owner[:i]
		}
	}
	return owner
}
