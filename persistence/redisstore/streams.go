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

// streamFields renders the mutable fields of rec as HSET pairs.
func streamFields(rec persistence.StreamRecord) []any {
	f := []any{
		"format", format,
		"prefix", rec.StreamPrefix,
		"shardCount", strconv.Itoa(rec.ShardCount),
		"metadataVersion", strconv.FormatInt(rec.MetadataVersion, 10),
		"updatedAt", formatTime(rec.UpdatedAt),
		"reason", rec.Reason,
	}
	if rec.Extra != nil {
		f = append(f, "extra", string(rec.Extra))
	}
	return f
}

// CreateStream implements persistence.Store.
func (s *Store) CreateStream(ctx context.Context, rec persistence.StreamRecord) (persistence.StreamRecord, error) {
	op := "create stream " + rec.StreamPrefix
	if err := checkCtx(ctx, op); err != nil {
		return persistence.StreamRecord{}, err
	}
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = s.now()
	}
	if rec.UpdatedAt.IsZero() {
		rec.UpdatedAt = rec.CreatedAt
	}
	rec.CreatedAt, rec.UpdatedAt = normTime(rec.CreatedAt), normTime(rec.UpdatedAt)
	rec.Revision = 1
	// The index is a superset: add first, so a crash after the script still lists it.
	if err := s.c.SAdd(ctx, s.k.streams(), rec.StreamPrefix).Err(); err != nil {
		return persistence.StreamRecord{}, mapErr(op, err)
	}
	args := append(streamFields(rec), "createdAt", formatTime(rec.CreatedAt), "createdBy", rec.CreatedBy, "revision", "1")
	status, _, err := s.runDurable(ctx, op, lua.CreateStream, []string{s.k.stream(rec.StreamPrefix)}, args...)
	if err != nil {
		return persistence.StreamRecord{}, err
	}
	switch status {
	case "OK":
		rec.Extra = clone(rec.Extra)
		return rec, nil
	case "EXISTS":
		return persistence.StreamRecord{}, fmt.Errorf("%s: %w", op, persistence.ErrExists)
	}
	return persistence.StreamRecord{}, fmt.Errorf("%s: unexpected script status %q", op, status)
}

// GetStream implements persistence.Store.
func (s *Store) GetStream(ctx context.Context, streamPrefix string) (persistence.StreamRecord, error) {
	op := "get stream " + streamPrefix
	if err := checkCtx(ctx, op); err != nil {
		return persistence.StreamRecord{}, err
	}
	h, err := s.c.HGetAll(ctx, s.k.stream(streamPrefix)).Result()
	if err != nil {
		return persistence.StreamRecord{}, mapErr(op, err)
	}
	if len(h) == 0 {
		return persistence.StreamRecord{}, fmt.Errorf("%s: %w", op, persistence.ErrNotFound)
	}
	return parseStream(op, streamPrefix, h)
}

// ListStreams implements persistence.Store.
func (s *Store) ListStreams(ctx context.Context) ([]persistence.StreamRecord, error) {
	const op = "list streams"
	if err := checkCtx(ctx, op); err != nil {
		return nil, err
	}
	names, err := s.c.SMembers(ctx, s.k.streams()).Result()
	if err != nil {
		return nil, mapErr(op, err)
	}
	sort.Strings(names)
	pipe := s.c.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(names))
	for i, name := range names {
		cmds[i] = pipe.HGetAll(ctx, s.k.stream(name))
	}
	if len(names) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, mapErr(op, err)
		}
	}
	out := make([]persistence.StreamRecord, 0, len(names))
	for i, name := range names {
		h, err := cmds[i].Result()
		if err != nil {
			return nil, mapErr(op, err)
		}
		if len(h) == 0 { // index entry of a create that never completed
			continue
		}
		rec, err := parseStream(op, name, h)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// UpdateStream implements persistence.Store.
func (s *Store) UpdateStream(ctx context.Context, rec persistence.StreamRecord, expectedRevision int64) (persistence.StreamRecord, error) {
	op := "update stream " + rec.StreamPrefix
	if err := checkCtx(ctx, op); err != nil {
		return persistence.StreamRecord{}, err
	}
	if rec.UpdatedAt.IsZero() {
		rec.UpdatedAt = s.now()
	}
	rec.UpdatedAt = normTime(rec.UpdatedAt)
	hasExtra := "0"
	if rec.Extra != nil {
		hasExtra = "1"
	}
	args := append([]any{strconv.FormatInt(expectedRevision, 10), strconv.FormatInt(rec.MetadataVersion, 10), hasExtra},
		streamFields(rec)...)
	status, rest, err := s.runDurable(ctx, op, lua.UpdateStream, []string{s.k.stream(rec.StreamPrefix)}, args...)
	if err != nil {
		return persistence.StreamRecord{}, err
	}
	switch status {
	case "OK":
		if len(rest) < 3 {
			return persistence.StreamRecord{}, fmt.Errorf("%s: short script reply", op)
		}
		rev, err := asInt(rest[0])
		if err != nil {
			return persistence.StreamRecord{}, fmt.Errorf("%s: revision: %w", op, err)
		}
		created, err := parseTime(asString(rest[1]))
		if err != nil {
			return persistence.StreamRecord{}, fmt.Errorf("%s: createdAt: %w", op, err)
		}
		rec.Revision, rec.CreatedAt, rec.CreatedBy = rev, created, asString(rest[2])
		rec.Extra = clone(rec.Extra)
		return rec, nil
	case "NOTFOUND":
		return persistence.StreamRecord{}, fmt.Errorf("%s: %w", op, persistence.ErrNotFound)
	case "CONFLICT":
		return persistence.StreamRecord{}, fmt.Errorf("%s: revision is %s, expected %d: %w", op, asString(rest[0]), expectedRevision, persistence.ErrConflict)
	case "REGRESS":
		return persistence.StreamRecord{}, fmt.Errorf("%s: metadataVersion %d would go back from %s: %w", op, rec.MetadataVersion, asString(rest[0]), persistence.ErrConflict)
	case "FORMAT":
		return persistence.StreamRecord{}, formatErr(op, asString(rest[0]))
	}
	return persistence.StreamRecord{}, fmt.Errorf("%s: unexpected script status %q", op, status)
}

func parseStream(op, prefix string, h map[string]string) (persistence.StreamRecord, error) {
	if h["format"] != format {
		return persistence.StreamRecord{}, formatErr(op, h["format"])
	}
	rec := persistence.StreamRecord{StreamPrefix: prefix, CreatedBy: h["createdBy"], Reason: h["reason"]}
	var err error
	bad := func(field string, e error) error {
		return fmt.Errorf("%s: corrupt field %s=%q: %w", op, field, h[field], e)
	}
	if rec.ShardCount, err = strconv.Atoi(h["shardCount"]); err != nil {
		return rec, bad("shardCount", err)
	}
	if rec.MetadataVersion, err = strconv.ParseInt(h["metadataVersion"], 10, 64); err != nil {
		return rec, bad("metadataVersion", err)
	}
	if rec.Revision, err = strconv.ParseInt(h["revision"], 10, 64); err != nil {
		return rec, bad("revision", err)
	}
	if rec.CreatedAt, err = parseTime(h["createdAt"]); err != nil {
		return rec, bad("createdAt", err)
	}
	if rec.UpdatedAt, err = parseTime(h["updatedAt"]); err != nil {
		return rec, bad("updatedAt", err)
	}
	if extra, ok := h["extra"]; ok {
		rec.Extra = []byte(extra)
	}
	return rec, nil
}

func normTime(t time.Time) time.Time { return t.Round(0).UTC() }

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func parseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}
