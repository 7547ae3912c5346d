package redisstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore/lua"
)

// Activate implements persistence.Store.
func (s *Store) Activate(ctx context.Context, key persistence.GroupKey, owner string) (persistence.GroupSnapshot, error) {
	op := "activate group " + key.String()
	if err := checkCtx(ctx, op); err != nil {
		return persistence.GroupSnapshot{}, err
	}
	// The index is a superset: add before the group exists.
	if err := s.c.ZAdd(ctx, s.k.groups(), redis.Z{Member: groupID(key)}).Err(); err != nil {
		return persistence.GroupSnapshot{}, mapErr(op, err)
	}
	status, rest, err := s.runDurable(ctx, op, lua.Activate,
		[]string{s.k.groupMeta(key), s.k.groupMembers(key)}, owner, key.StreamPrefix, key.ConsumerGroup)
	if err != nil {
		return persistence.GroupSnapshot{}, err
	}
	switch status {
	case "OK":
	case "FORMAT":
		return persistence.GroupSnapshot{}, formatErr(op, asString(rest[0]))
	default:
		return persistence.GroupSnapshot{}, fmt.Errorf("%s: unexpected script status %q", op, status)
	}
	if len(rest) < 9 {
		return persistence.GroupSnapshot{}, fmt.Errorf("%s: short script reply", op)
	}
	snap := persistence.GroupSnapshot{Key: key, Owner: owner}
	for _, o := range strings.Split(asString(rest[5]), "\n") {
		if o != "" && o != owner {
			snap.Fenced = append(snap.Fenced, o)
		}
	}
	if snap.ActivationEpoch, err = asInt(rest[0]); err != nil {
		return persistence.GroupSnapshot{}, fmt.Errorf("%s: activation: %w", op, err)
	}
	if snap.Revision, err = asInt(rest[1]); err != nil {
		return persistence.GroupSnapshot{}, fmt.Errorf("%s: revision: %w", op, err)
	}
	if asString(rest[2]) == "1" {
		snap.Meta = []byte(asString(rest[3]))
	}
	flat, _ := rest[4].([]any)
	snap.Members = make(map[string][]byte, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		snap.Members[asString(flat[i])] = []byte(asString(flat[i+1]))
	}
	if asString(rest[6]) == "1" {
		snap.Handover = []byte(asString(rest[7]))
		age, err := asInt(rest[8])
		if err != nil {
			return persistence.GroupSnapshot{}, fmt.Errorf("%s: hand-over age: %w", op, err)
		}
		snap.HandoverAge = time.Duration(age) * time.Microsecond
	}
	if len(rest) >= 11 && asString(rest[9]) == "1" {
		snap.Events = []byte(asString(rest[10]))
	}
	return snap, nil
}

// SaveGroup implements persistence.Store.
func (s *Store) SaveGroup(ctx context.Context, key persistence.GroupKey, activationEpoch, expectedRevision int64, change persistence.GroupChange) (int64, error) {
	op := "save group " + key.String()
	if err := checkCtx(ctx, op); err != nil {
		return 0, err
	}
	args := make([]any, 0, 7+2*len(change.PutMembers)+len(change.DeleteMembers))
	hasMeta, hasEvents := "0", "0"
	if change.Meta != nil {
		hasMeta = "1"
	}
	if change.Events != nil {
		hasEvents = "1"
	}
	args = append(args, strconv.FormatInt(activationEpoch, 10), strconv.FormatInt(expectedRevision, 10),
		hasMeta, string(change.Meta), hasEvents, string(change.Events), strconv.Itoa(len(change.PutMembers)))
	for id, rec := range change.PutMembers {
		args = append(args, id, string(rec))
	}
	for _, id := range change.DeleteMembers {
		args = append(args, id)
	}
	status, rest, err := s.runDurable(ctx, op, lua.Save, []string{s.k.groupMeta(key), s.k.groupMembers(key)}, args...)
	if err != nil {
		return 0, err
	}
	if status == "OK" {
		rev, err := asInt(rest[0])
		if err != nil {
			return 0, fmt.Errorf("%s: revision: %w", op, err)
		}
		return rev, nil
	}
	if status == "CONFLICT" {
		if stored, err := asInt(rest[0]); err == nil && stored < expectedRevision {
			return 0, fmt.Errorf("%s: revision is %d, expected %d: %w: %w", op, stored, expectedRevision, persistence.ErrConflict, persistence.ErrBehind)
		}
		return 0, fmt.Errorf("%s: revision is %s, expected %d: %w", op, asString(rest[0]), expectedRevision, persistence.ErrConflict)
	}
	return 0, guardErr(op, status, rest, activationEpoch)
}

// DeleteGroup implements persistence.Store.
func (s *Store) DeleteGroup(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	return s.runGuarded(ctx, "delete group "+key.String(), s.runDurable, lua.Delete, key, activationEpoch)
}

// scriptRunner is s.run or s.runDurable.
type scriptRunner func(ctx context.Context, op string, sc *redis.Script, keys []string, args ...any) (string, []any, error)

// runGuarded runs a script that starts with groupGuard on key's meta and
// members hashes at activationEpoch: nil when it answers OK, else the
// guard's error (fenced, behind, not found, format).
func (s *Store) runGuarded(ctx context.Context, op string, run scriptRunner, sc *redis.Script, key persistence.GroupKey, activationEpoch int64) error {
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	status, rest, err := run(ctx, op, sc, []string{s.k.groupMeta(key), s.k.groupMembers(key)}, strconv.FormatInt(activationEpoch, 10))
	if err != nil {
		return err
	}
	if status == "OK" {
		return nil
	}
	return guardErr(op, status, rest, activationEpoch)
}

// guardErr maps the statuses of groupGuard.
func guardErr(op, status string, rest []any, epoch int64) error {
	detail := ""
	if len(rest) > 0 {
		detail = asString(rest[0])
	}
	switch status {
	case "NOTFOUND":
		return fmt.Errorf("%s: %s: %w", op, detail, persistence.ErrNotFound)
	case "BEHIND":
		if detail == "never activated" {
			return fmt.Errorf("%s: %s: %w: %w", op, detail, persistence.ErrNotFound, persistence.ErrBehind)
		}
		return fmt.Errorf("%s: %s, caller holds %d: %w: %w", op, detail, epoch, persistence.ErrFenced, persistence.ErrBehind)
	case "FENCED":
		return fmt.Errorf("%s: activation epoch is %s, caller holds %d: %w", op, detail, epoch, persistence.ErrFenced)
	case "FORMAT":
		return formatErr(op, detail)
	}
	return fmt.Errorf("%s: unexpected script status %q", op, status)
}

// CheckActivation implements persistence.Store.
func (s *Store) CheckActivation(ctx context.Context, key persistence.GroupKey, activationEpoch int64) error {
	op := "check activation of group " + key.String()
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	vals, err := s.c.HMGet(ctx, s.k.groupMeta(key), "activation", "live").Result()
	if err != nil {
		return mapErr(op, err)
	}
	act, _ := vals[0].(string)
	live, _ := vals[1].(string)
	if stored, err := strconv.ParseInt(act, 10, 64); act == "" || (err == nil && stored < activationEpoch) {
		return fmt.Errorf("%s: activation %d is not stored (stored %q): %w: %w", op, activationEpoch, act, persistence.ErrFenced, persistence.ErrBehind)
	}
	if live != "1" || act != strconv.FormatInt(activationEpoch, 10) {
		return fmt.Errorf("%s: activation %d is not current (stored %q, live %q): %w", op, activationEpoch, act, live, persistence.ErrFenced)
	}
	return nil
}

// LoadGroup implements persistence.Store.
func (s *Store) LoadGroup(ctx context.Context, key persistence.GroupKey) (persistence.GroupSnapshot, error) {
	op := "load group " + key.String()
	if err := checkCtx(ctx, op); err != nil {
		return persistence.GroupSnapshot{}, err
	}
	var metaCmd, membersCmd *redis.MapStringStringCmd
	_, err := s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		metaCmd = p.HGetAll(ctx, s.k.groupMeta(key))
		membersCmd = p.HGetAll(ctx, s.k.groupMembers(key))
		return nil
	})
	if err != nil {
		return persistence.GroupSnapshot{}, mapErr(op, err)
	}
	h, members := metaCmd.Val(), membersCmd.Val()
	if len(h) == 0 {
		return persistence.GroupSnapshot{}, fmt.Errorf("%s: %w", op, persistence.ErrNotFound)
	}
	if h["format"] != format {
		return persistence.GroupSnapshot{}, formatErr(op, h["format"])
	}
	if h["live"] != "1" {
		return persistence.GroupSnapshot{}, fmt.Errorf("%s: deleted: %w", op, persistence.ErrNotFound)
	}
	snap := persistence.GroupSnapshot{Key: key, Owner: h["owner"], Members: make(map[string][]byte, len(members))}
	if snap.ActivationEpoch, err = strconv.ParseInt(h["activation"], 10, 64); err != nil {
		return persistence.GroupSnapshot{}, fmt.Errorf("%s: corrupt activation %q: %w", op, h["activation"], err)
	}
	if snap.Revision, err = strconv.ParseInt(h["revision"], 10, 64); err != nil {
		return persistence.GroupSnapshot{}, fmt.Errorf("%s: corrupt revision %q: %w", op, h["revision"], err)
	}
	if m, ok := h["meta"]; ok {
		snap.Meta = []byte(m)
	}
	if e, ok := h["events"]; ok {
		snap.Events = []byte(e)
	}
	for id, rec := range members {
		snap.Members[id] = []byte(rec)
	}
	return snap, nil
}

// ListGroups implements persistence.Store.
func (s *Store) ListGroups(ctx context.Context, streamPrefix string) ([]persistence.GroupKey, error) {
	op := "list groups"
	if streamPrefix != "" {
		op += " of " + streamPrefix
	}
	if err := checkCtx(ctx, op); err != nil {
		return nil, err
	}
	rng := &redis.ZRangeBy{Min: "-", Max: "+"}
	if streamPrefix != "" {
		// '|' (0x7C) ends the escaped prefix; '}' (0x7D) is the next byte.
		p := escape(streamPrefix)
		rng = &redis.ZRangeBy{Min: "[" + p + "|", Max: "(" + p + "}"}
	}
	ids, err := s.c.ZRangeByLex(ctx, s.k.groups(), rng).Result()
	if err != nil {
		return nil, mapErr(op, err)
	}
	keys := make([]persistence.GroupKey, 0, len(ids))
	for _, id := range ids {
		k, err := parseGroupID(id)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		keys = append(keys, k)
	}
	live := make([]*redis.StringCmd, len(keys))
	if len(keys) > 0 {
		pipe := s.c.Pipeline()
		for i, k := range keys {
			live[i] = pipe.HGet(ctx, s.k.groupMeta(k), "live")
		}
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			return nil, mapErr(op, err)
		}
	}
	out := []persistence.GroupKey{}
	for i, k := range keys {
		v, err := live[i].Result()
		if err == redis.Nil {
			continue // index entry of an activation that never completed
		}
		if err != nil {
			return nil, mapErr(op, err)
		}
		if v == "1" {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out, nil
}
