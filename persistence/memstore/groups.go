package memstore

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/redisstream/coordinator/persistence"
)

// Activate implements persistence.Store.
func (s *Store) Activate(ctx context.Context, key persistence.GroupKey, owner string) (persistence.GroupSnapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := "activate group " + key.String()
	if err := s.check(ctx, op); err != nil {
		return persistence.GroupSnapshot{}, err
	}
	g := s.groups[key]
	if g == nil {
		g = &group{}
		s.groups[key] = g
	}
	if !g.live {
		g.live, g.meta, g.events, g.members = true, nil, nil, map[string][]byte{}
		g.dropHandover()
	}
	var handover []byte
	var age time.Duration
	if g.handover != nil && g.handoverEpoch == g.activation {
		handover, age = g.handover, max(0, s.now().Sub(g.handoverAt))
	}
	g.dropHandover()
	g.activation++
	if g.owner != "" && g.owner != owner && !contains(g.fenced, g.owner) {
		g.fenced = append(g.fenced, g.owner)
	}
	g.owner = owner
	s.writes++
	snap := snapshot(key, g)
	snap.Handover, snap.HandoverAge = handover, age
	for _, o := range g.fenced {
		if o != owner {
			snap.Fenced = append(snap.Fenced, o)
		}
	}
	return snap, nil
}

// CheckActivation implements persistence.Store.
func (s *Store) CheckActivation(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := "check activation of group " + key.String()
	if err := s.check(ctx, op); err != nil {
		return err
	}
	g := s.groups[key]
	if g == nil || g.activation < activationEpoch {
		return fmt.Errorf("%s: activation %d is not stored: %w: %w", op, activationEpoch, persistence.ErrFenced, persistence.ErrBehind)
	}
	if !g.live || g.activation != activationEpoch {
		return fmt.Errorf("%s: activation %d is not current: %w", op, activationEpoch, persistence.ErrFenced)
	}
	return nil
}

// SaveGroup implements persistence.Store.
func (s *Store) SaveGroup(ctx context.Context, key persistence.GroupKey, activationEpoch, expectedRevision int64, change persistence.GroupChange) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := fmt.Sprintf("save group %s", key)
	if err := s.check(ctx, op); err != nil {
		return 0, err
	}
	g, err := s.writable(key, activationEpoch, op)
	if err != nil {
		return 0, err
	}
	if g.revision < expectedRevision {
		return 0, fmt.Errorf("%s: revision is %d, expected %d: %w: %w", op, g.revision, expectedRevision, persistence.ErrConflict, persistence.ErrBehind)
	}
	if g.revision != expectedRevision {
		return 0, fmt.Errorf("%s: revision is %d, expected %d: %w", op, g.revision, expectedRevision, persistence.ErrConflict)
	}
	if change.Meta != nil {
		g.meta = cloneBytes(change.Meta)
	}
	if change.Events != nil {
		g.events = cloneBytes(change.Events)
	}
	for id, rec := range change.PutMembers {
		g.members[id] = cloneBytes(nonNil(rec))
	}
	for _, id := range change.DeleteMembers {
		delete(g.members, id)
	}
	g.revision++
	s.writes++
	return g.revision, nil
}

// LoadGroup implements persistence.Store.
func (s *Store) LoadGroup(ctx context.Context, key persistence.GroupKey) (persistence.GroupSnapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := "load group " + key.String()
	if err := s.check(ctx, op); err != nil {
		return persistence.GroupSnapshot{}, err
	}
	g := s.groups[key]
	if g == nil || !g.live {
		return persistence.GroupSnapshot{}, fmt.Errorf("%s: %w", op, persistence.ErrNotFound)
	}
	return snapshot(key, g), nil
}

// ListGroups implements persistence.Store.
func (s *Store) ListGroups(ctx context.Context, streamPrefix string) ([]persistence.GroupKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(ctx, "list groups"); err != nil {
		return nil, err
	}
	out := []persistence.GroupKey{}
	for k, g := range s.groups {
		if g.live && (streamPrefix == "" || k.StreamPrefix == streamPrefix) {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out, nil
}

// DeleteGroup implements persistence.Store.
func (s *Store) DeleteGroup(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	op := "delete group " + key.String()
	if err := s.check(ctx, op); err != nil {
		return err
	}
	g, err := s.writable(key, activationEpoch, op)
	if err != nil {
		return err
	}
	g.live, g.meta, g.events, g.members, g.owner, g.fenced = false, nil, nil, nil, "", nil
	g.dropHandover()
	s.writes++
	return nil
}

// writable returns the group if activationEpoch may write it.
func (s *Store) writable(key persistence.GroupKey, activationEpoch int64, op string) (*group, error) {
	g := s.groups[key]
	if g == nil {
		return nil, fmt.Errorf("%s: never activated: %w: %w", op, persistence.ErrNotFound, persistence.ErrBehind)
	}
	if g.activation < activationEpoch {
		return nil, fmt.Errorf("%s: activation epoch is %d, caller holds %d: %w: %w", op, g.activation, activationEpoch, persistence.ErrFenced, persistence.ErrBehind)
	}
	if g.activation != activationEpoch {
		return nil, fmt.Errorf("%s: activation epoch is %d, caller holds %d: %w", op, g.activation, activationEpoch, persistence.ErrFenced)
	}
	if !g.live {
		return nil, fmt.Errorf("%s: deleted: %w", op, persistence.ErrNotFound)
	}
	return g, nil
}

func snapshot(key persistence.GroupKey, g *group) persistence.GroupSnapshot {
	members := make(map[string][]byte, len(g.members))
	for id, rec := range g.members {
		members[id] = cloneBytes(rec)
	}
	return persistence.GroupSnapshot{
		Key: key, Revision: g.revision, ActivationEpoch: g.activation, Owner: g.owner,
		Meta: cloneBytes(g.meta), Events: cloneBytes(g.events), Members: members,
	}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
