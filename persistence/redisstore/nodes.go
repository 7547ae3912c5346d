package redisstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore/lua"
)

// RenewNode implements persistence.Nodes: one script, which also renews
// the node registry entry and reads the other live entries (actors/node/registry.go).
// With Options.WaitReplicas it waits for the replicas like every state
// write: the node's renew counter is how it tells a failover that lost
// writes (the counter goes backwards), so a renewal the promoted replica
// lacks would look like lost decisions where WAIT kept every one.
func (s *Store) RenewNode(ctx context.Context, r persistence.NodeRenewal) (persistence.NodeStatus, error) {
	op := "renew node " + r.Owner
	if err := checkCtx(ctx, op); err != nil {
		return persistence.NodeStatus{}, err
	}
	ttl := r.TTL.Milliseconds()
	if ttl < 1 {
		ttl = 1
	}
	status, rest, err := s.runDurable(ctx, op, lua.RenewNode, []string{s.k.instance(), s.k.node(r.Owner), s.k.registry()},
		strconv.FormatInt(ttl, 10), r.NewInstance.ID, strconv.FormatInt(r.NewInstance.CreatedAt.UnixMilli(), 10),
		r.Owner, encodeRegistration(r.Owner, r.Registration))
	if err != nil {
		return persistence.NodeStatus{}, err
	}
	if status != "OK" || len(rest) < 8 {
		return persistence.NodeStatus{}, fmt.Errorf("%s: unexpected script reply %q %v", op, status, rest)
	}
	var st persistence.NodeStatus
	if st.Renews, err = asInt(rest[0]); err != nil {
		return st, fmt.Errorf("%s: renews: %w", op, err)
	}
	if st.Takeovers, err = asInt(rest[1]); err != nil {
		return st, fmt.Errorf("%s: takeovers: %w", op, err)
	}
	nc, _ := asInt(rest[2])
	ic, _ := asInt(rest[5])
	st.Created, st.InstanceCreated = nc == 1, ic == 1
	st.Instance.ID = asString(rest[3])
	ms, err := asInt(rest[4])
	if err != nil {
		return st, fmt.Errorf("%s: corrupt instance marker: %w", op, err)
	}
	st.Instance.CreatedAt = time.UnixMilli(ms).UTC()
	if err := decodeRegistry(r, rest[6:], &st); err != nil {
		return st, fmt.Errorf("%s: node registry: %w", op, err)
	}
	return st, nil
}

// NotifyTakeover implements persistence.Nodes.
func (s *Store) NotifyTakeover(ctx context.Context, owner string) (bool, error) {
	op := "notify takeover to " + owner
	if err := checkCtx(ctx, op); err != nil {
		return false, err
	}
	_, rest, err := s.run(ctx, op, lua.Notify, []string{s.k.node(owner)})
	if err != nil {
		return false, err
	}
	n, _ := asInt(rest[0])
	return n == 1, nil
}

// NodeAlive implements persistence.Nodes.
func (s *Store) NodeAlive(ctx context.Context, owner string) (bool, error) {
	op := "check node " + owner
	if err := checkCtx(ctx, op); err != nil {
		return false, err
	}
	n, err := s.c.Exists(ctx, s.k.node(owner)).Result()
	if err != nil {
		return false, mapErr(op, err)
	}
	return n == 1, nil
}

// ClearTakeover implements persistence.Nodes.
func (s *Store) ClearTakeover(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	return s.runGuarded(ctx, "clear takeover of group "+key.String(), s.run, lua.ClearTakeover, key, activationEpoch)
}

// ReleaseActivation implements persistence.Nodes: one EVALSHA. The
// hand-over is not sent with WAIT: if a failover loses it, the next
// activation gives fresh leases, as after a crash.
func (s *Store) ReleaseActivation(ctx context.Context, key persistence.GroupKey, activationEpoch int64, handover []byte) error {
	op := "release group " + key.String()
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	_, _, err := s.run(ctx, op, lua.Release, []string{s.k.groupMeta(key)}, strconv.FormatInt(activationEpoch, 10), string(handover))
	return err
}

// MarkLive implements persistence.Nodes.
func (s *Store) MarkLive(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	op := "mark group " + key.String() + " live"
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	return mapErr(op, s.c.ZAdd(ctx, s.k.live(), redis.Z{Score: float64(activationEpoch), Member: groupID(key)}).Err())
}

// UnmarkLive implements persistence.Nodes.
func (s *Store) UnmarkLive(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	op := "unmark group " + key.String()
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	_, _, err := s.run(ctx, op, lua.UnmarkLive, []string{s.k.live()}, groupID(key), strconv.FormatInt(activationEpoch, 10))
	return err
}

// Orphans implements persistence.Nodes: ZRANGE of the live index, one
// pipelined HMGET per indexed group and one pipelined EXISTS per distinct
// owner. Cost grows with groups that have live members, never with idle ones.
func (s *Store) Orphans(ctx context.Context, nodeID string) ([]persistence.GroupKey, error) {
	op := "list orphaned groups"
	if err := checkCtx(ctx, op); err != nil {
		return nil, err
	}
	ids, err := s.c.ZRange(ctx, s.k.live(), 0, -1).Result()
	if err != nil {
		return nil, mapErr(op, err)
	}
	out := []persistence.GroupKey{}
	if len(ids) == 0 {
		return out, nil
	}
	keys := make([]persistence.GroupKey, len(ids))
	cmds := make([]*redis.SliceCmd, len(ids))
	pipe := s.c.Pipeline()
	for i, id := range ids {
		if keys[i], err = parseGroupID(id); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		cmds[i] = pipe.HMGet(ctx, s.k.groupMeta(keys[i]), "owner", "live")
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, mapErr(op, err)
	}
	owners := map[string]*redis.IntCmd{}
	pipe = s.c.Pipeline()
	for i := range keys {
		owner, _ := cmds[i].Val()[0].(string)
		live, _ := cmds[i].Val()[1].(string)
		if live != "1" {
			continue // deleted (its actor unmarks it) or lost
		}
		if owner != "" && persistence.OwnerNode(owner) != nodeID && owners[owner] == nil {
			owners[owner] = pipe.Exists(ctx, s.k.node(owner))
		}
	}
	if len(owners) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, mapErr(op, err)
		}
	}
	for i, k := range keys {
		owner, _ := cmds[i].Val()[0].(string)
		live, _ := cmds[i].Val()[1].(string)
		if live != "1" {
			continue
		}
		if c := owners[owner]; owner == "" || c == nil || c.Val() == 0 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out, nil
}
