package memstore

import (
	"context"
	"sort"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// node is one node record; it expires at expires (store clock). reg is its
// registration (nil after Deregister).
type node struct {
	renews, takeovers int64
	expires           time.Time
	reg               *persistence.NodeRegistration
}

// record returns owner's node record if it has not expired; s.mu held.
func (s *Store) record(owner string) *node {
	n := s.nodes[owner]
	if n != nil && !s.now().Before(n.expires) {
		delete(s.nodes, owner)
		return nil
	}
	return n
}

// RenewNode implements persistence.Nodes.
func (s *Store) RenewNode(ctx context.Context, r persistence.NodeRenewal) (persistence.NodeStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "renew node "+r.Owner); err != nil {
		return persistence.NodeStatus{}, err
	}
	var st persistence.NodeStatus
	if s.instance == nil {
		inst := r.NewInstance
		inst.CreatedAt = inst.CreatedAt.Round(0).UTC().Truncate(time.Millisecond)
		s.instance = &inst
		st.InstanceCreated = true
	}
	st.Instance = *s.instance
	n := s.record(r.Owner)
	if n == nil {
		n = &node{}
		s.nodes[r.Owner] = n
		st.Created = true
	}
	n.renews++
	now := s.now().Round(0).UTC().Truncate(time.Millisecond)
	n.expires = s.now().Add(r.TTL)
	st.Renews, st.Takeovers = n.renews, n.takeovers
	reg := r.Registration
	reg.Owner = r.Owner
	if reg.NodeID == "" {
		reg.NodeID = persistence.OwnerNode(r.Owner)
	}
	reg.RegisteredAt, reg.RenewedAt = now, now
	if n.reg != nil {
		reg.RegisteredAt = n.reg.RegisteredAt
	}
	n.reg = &reg
	st.Self = reg
	st.Peers = []persistence.NodeRegistration{}
	for owner := range s.nodes {
		if p := s.record(owner); p != nil && p.reg != nil && owner != r.Owner {
			st.Peers = append(st.Peers, *p.reg)
		}
	}
	sort.Slice(st.Peers, func(i, j int) bool { return st.Peers[i].Owner < st.Peers[j].Owner })
	return st, nil
}

// Deregister implements persistence.Nodes.
func (s *Store) Deregister(ctx context.Context, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "deregister node "+owner); err != nil {
		return err
	}
	if n := s.record(owner); n != nil {
		n.reg = nil
	}
	return nil
}

// NotifyTakeover implements persistence.Nodes.
func (s *Store) NotifyTakeover(ctx context.Context, owner string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "notify takeover to "+owner); err != nil {
		return false, err
	}
	n := s.record(owner)
	if n == nil {
		return false, nil
	}
	n.takeovers++
	return true, nil
}

// NodeAlive implements persistence.Nodes.
func (s *Store) NodeAlive(ctx context.Context, owner string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "check node "+owner); err != nil {
		return false, err
	}
	return s.record(owner) != nil, nil
}

// ClearTakeover implements persistence.Nodes.
func (s *Store) ClearTakeover(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := "clear takeover of group " + key.String()
	if err := s.check(ctx, op); err != nil {
		return err
	}
	g, err := s.writable(key, activationEpoch, op)
	if err != nil {
		return err
	}
	g.fenced = nil
	return nil
}

// ReleaseActivation implements persistence.Nodes.
func (s *Store) ReleaseActivation(ctx context.Context, key persistence.GroupKey, activationEpoch int64, handover []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "release group "+key.String()); err != nil {
		return err
	}
	if g := s.groups[key]; g != nil && g.activation == activationEpoch {
		g.owner = ""
		g.dropHandover()
		if len(handover) > 0 {
			g.handover, g.handoverEpoch, g.handoverAt = cloneBytes(handover), activationEpoch, s.now()
		}
	}
	return nil
}

// MarkLive implements persistence.Nodes.
func (s *Store) MarkLive(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "mark group "+key.String()+" live"); err != nil {
		return err
	}
	s.live[key] = activationEpoch
	return nil
}

// UnmarkLive implements persistence.Nodes.
func (s *Store) UnmarkLive(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "unmark group "+key.String()); err != nil {
		return err
	}
	if e, ok := s.live[key]; ok && e <= activationEpoch {
		delete(s.live, key)
	}
	return nil
}

// Orphans implements persistence.Nodes.
func (s *Store) Orphans(ctx context.Context, nodeID string) ([]persistence.GroupKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "list orphaned groups"); err != nil {
		return nil, err
	}
	out := []persistence.GroupKey{}
	for k := range s.live {
		g := s.groups[k]
		if g == nil || !g.live {
			continue // deleted (its actor unmarks it) or lost
		}
		if g.owner == "" || s.record(g.owner) == nil || (persistence.OwnerNode(g.owner) == nodeID) {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out, nil
}
