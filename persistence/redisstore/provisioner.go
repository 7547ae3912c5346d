package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
)

// provisionGroup is the throw-away consumer group EnsureStreams uses to create
// an empty stream. It contains a control character (0x1F), which API group
// names may not (protocol.ValidateName), so it can never be a user's group:
// EnsureStreams destroys it right after creating it.
const provisionGroup = "rsc\x1fprovision"

// Provisioner is the Redis persistence.Provisioner. Shard stream keys are
// "{prefix}:{i}" with the raw prefix (the data plane naming of SPEC §3), not
// under the store's key prefix.
type Provisioner struct {
	c redis.UniversalClient
}

var _ persistence.Provisioner = (*Provisioner)(nil)

// NewProvisioner returns a provisioner over c (the caller owns c).
func NewProvisioner(c redis.UniversalClient) *Provisioner { return &Provisioner{c: c} }

// ShardKey is the Redis key of shard i of a stream.
func ShardKey(streamPrefix string, shard int) string {
	return streamPrefix + ":" + strconv.Itoa(shard)
}

func checkRange(op string, from, to int) error {
	if from < 0 || to < from {
		return fmt.Errorf("%s: invalid shard range [%d,%d)", op, from, to)
	}
	return nil
}

// EnsureStreams implements persistence.Provisioner. A missing shard is created
// empty by XGROUP CREATE … $ MKSTREAM of a throw-away group that is destroyed
// at once; unlike XADD+XDEL this leaves no tombstone, so consumer-group lag
// stays exact. An existing stream is not touched beyond that.
func (p *Provisioner) EnsureStreams(ctx context.Context, streamPrefix string, from, to int) error {
	op := fmt.Sprintf("ensure streams %s [%d,%d)", streamPrefix, from, to)
	if err := checkRange(op, from, to); err != nil {
		return err
	}
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	if from == to {
		return nil
	}
	pipe := p.c.Pipeline()
	creates := make([]*redis.StatusCmd, 0, to-from)
	destroys := make([]*redis.IntCmd, 0, to-from)
	for i := from; i < to; i++ {
		key := ShardKey(streamPrefix, i)
		creates = append(creates, pipe.XGroupCreateMkStream(ctx, key, provisionGroup, "$"))
		destroys = append(destroys, pipe.XGroupDestroy(ctx, key, provisionGroup))
	}
	_, _ = pipe.Exec(ctx) // errors are per command, checked below
	for i := range creates {
		if err := creates[i].Err(); err != nil && !isBusyGroup(err) {
			return mapErr(op, err)
		}
		if err := destroys[i].Err(); err != nil {
			return mapErr(op, err)
		}
	}
	return nil
}

// EnsureGroup implements persistence.Provisioner.
func (p *Provisioner) EnsureGroup(ctx context.Context, streamPrefix, group string, from, to int) error {
	return p.ensureGroup(ctx, fmt.Sprintf("ensure group %s/%s [%d,%d)", streamPrefix, group, from, to), streamPrefix, group, from, to, true)
}

// EnsureGroupOnExisting implements persistence.Provisioner: XGROUP CREATE
// without MKSTREAM; a missing stream is skipped.
func (p *Provisioner) EnsureGroupOnExisting(ctx context.Context, streamPrefix, group string, from, to int) error {
	return p.ensureGroup(ctx, fmt.Sprintf("ensure group %s/%s on existing shards [%d,%d)", streamPrefix, group, from, to), streamPrefix, group, from, to, false)
}

// ensureGroup creates the consumer group on shards [from,to) reading from
// "0", pipelined; an existing group is success, and without mkstream so is
// a missing stream.
func (p *Provisioner) ensureGroup(ctx context.Context, op, streamPrefix, group string, from, to int, mkstream bool) error {
	if err := checkRange(op, from, to); err != nil {
		return err
	}
	if err := checkCtx(ctx, op); err != nil {
		return err
	}
	if from == to {
		return nil
	}
	pipe := p.c.Pipeline()
	cmds := make([]*redis.StatusCmd, 0, to-from)
	for i := from; i < to; i++ {
		if mkstream {
			cmds = append(cmds, pipe.XGroupCreateMkStream(ctx, ShardKey(streamPrefix, i), group, "0"))
		} else {
			cmds = append(cmds, pipe.XGroupCreate(ctx, ShardKey(streamPrefix, i), group, "0"))
		}
	}
	_, _ = pipe.Exec(ctx)
	for _, cmd := range cmds {
		err := cmd.Err()
		if err == nil || isBusyGroup(err) || (!mkstream && (isNoSuchKey(err) || isKeyMissingForGroup(err))) {
			continue
		}
		return mapErr(op, err)
	}
	return nil
}

// isKeyMissingForGroup: XGROUP CREATE without MKSTREAM on a missing key
// answers "ERR The XGROUP subcommand requires the key to exist…".
func isKeyMissingForGroup(err error) bool {
	return err != nil && strings.Contains(err.Error(), "requires the key to exist")
}

// ShardInfo implements persistence.Provisioner.
func (p *Provisioner) ShardInfo(ctx context.Context, streamPrefix, group string, shard int) (persistence.ShardInfo, error) {
	key := ShardKey(streamPrefix, shard)
	op := "shard info " + key
	out := persistence.ShardInfo{Shard: shard, StreamKey: key, Lag: -1, EntriesRead: -1}
	if err := checkCtx(ctx, op); err != nil {
		return out, err
	}
	xs, err := p.c.XInfoStream(ctx, key).Result()
	if isNoSuchKey(err) {
		return out, nil
	}
	if err != nil {
		return out, mapErr(op, err)
	}
	out.Exists, out.Length, out.LastGeneratedID = true, xs.Length, xs.LastGeneratedID
	groups, err := xinfoGroups(ctx, p.c, key)
	if isNoSuchKey(err) { // deleted in between
		return persistence.ShardInfo{Shard: shard, StreamKey: key, Lag: -1, EntriesRead: -1}, nil
	}
	if err != nil {
		return out, mapErr(op, err)
	}
	fillGroup(&out, groups, group)
	return out, nil
}

// fillGroup copies group's XINFO GROUPS fields into out, if group is listed.
func fillGroup(out *persistence.ShardInfo, groups []map[string]any, group string) {
	for _, g := range groups {
		if str(g["name"]) != group {
			continue
		}
		out.GroupExists = true
		out.Pending = num(g["pending"], 0)
		out.LastDeliveredID = str(g["last-delivered-id"])
		out.EntriesRead = num(g["entries-read"], -1)
		out.Lag = num(g["lag"], -1) // absent (Redis < 7) or null: unknown
		if out.Lag != 0 && out.LastGeneratedID != "" && !protocol.StreamIDLess(out.LastDeliveredID, out.LastGeneratedID) {
			// Everything ever written was delivered (ids as Redis writes
			// them: protocol.StreamIDLess orders them): the lag is 0, whatever
			// Redis counts (its entries-read counter is not replicated by
			// Redis 7.0, so after a failover it can lag behind for good).
			out.Lag = 0
		}
	}
}

// xinfoGroups runs XINFO GROUPS and returns one field map per group. It
// parses the raw reply (RESP2 flat arrays or RESP3 maps) so that an absent
// or null lag stays distinguishable from 0.
func xinfoGroups(ctx context.Context, c redis.UniversalClient, key string) ([]map[string]any, error) {
	res, err := c.Do(ctx, "XINFO", "GROUPS", key).Result()
	if err != nil {
		return nil, err
	}
	return parseXInfoGroups(res)
}

// parseXInfoGroups parses a raw XINFO GROUPS reply.
func parseXInfoGroups(res any) ([]map[string]any, error) {
	arr, ok := res.([]any)
	if !ok {
		return nil, fmt.Errorf("unexpected XINFO GROUPS reply %T", res)
	}
	out := make([]map[string]any, 0, len(arr))
	for _, item := range arr {
		m := map[string]any{}
		switch v := item.(type) {
		case []any:
			for i := 0; i+1 < len(v); i += 2 {
				m[str(v[i])] = v[i+1]
			}
		case map[any]any:
			for k, val := range v {
				m[str(k)] = val
			}
		case map[string]any:
			m = v
		default:
			return nil, fmt.Errorf("unexpected XINFO GROUPS entry %T", item)
		}
		out = append(out, m)
	}
	return out, nil
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// num reads an integer reply; def when absent or null.
func num(v any, def int64) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n
		}
	}
	return def
}

func isBusyGroup(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "BUSYGROUP")
}

func isNoSuchKey(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "no such key")
}
