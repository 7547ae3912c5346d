package api

import "github.com/redisstream/coordinator/api/edge"

// Inputs of the typed handlers (typed.go): their path and query fields are
// what huma documents and fills; check decodes and validates the path
// fields once (params.go), in path order, before any body is read.
// The path types are exported only because huma reads the fields of an
// embedded struct only when its type is exported; nothing outside uses them.

// noInput: a route without parameters or body.
type noInput struct{}

// StreamPath is /…/streams/:streamPrefix.
type StreamPath struct {
	StreamPrefix string `path:"streamPrefix"`
}

func (p *StreamPath) check() (err error) {
	p.StreamPrefix, err = edge.Name(p.StreamPrefix, "streamPrefix")
	return err
}

// GroupPath is /…/streams/:streamPrefix/groups/:consumerGroup.
type GroupPath struct {
	StreamPrefix  string `path:"streamPrefix"`
	ConsumerGroup string `path:"consumerGroup"`
}

func (p *GroupPath) check() (err error) {
	if p.StreamPrefix, err = edge.Name(p.StreamPrefix, "streamPrefix"); err != nil {
		return err
	}
	p.ConsumerGroup, err = edge.Name(p.ConsumerGroup, "consumerGroup")
	return err
}

// MigrationPath is a group's migration.
type MigrationPath struct {
	StreamPrefix  string `path:"streamPrefix"`
	ConsumerGroup string `path:"consumerGroup"`
	ReshardingID  string `path:"reshardingId"`
}

func (p *MigrationPath) check() (err error) {
	g := GroupPath{p.StreamPrefix, p.ConsumerGroup}
	if err = g.check(); err != nil {
		return err
	}
	p.StreamPrefix, p.ConsumerGroup = g.StreamPrefix, g.ConsumerGroup
	p.ReshardingID, err = edge.Name(p.ReshardingID, "reshardingId")
	return err
}

// StreamMigrationPath is a stream's migration.
type StreamMigrationPath struct {
	StreamPrefix string `path:"streamPrefix"`
	ReshardingID string `path:"reshardingId"`
}

func (p *StreamMigrationPath) check() (err error) {
	if p.StreamPrefix, err = edge.Name(p.StreamPrefix, "streamPrefix"); err != nil {
		return err
	}
	p.ReshardingID, err = edge.Name(p.ReshardingID, "reshardingId")
	return err
}

// shardPage: one page of a shard (the count query parameter is read and
// documented by the handler: handlers_browse.go).
type shardPage struct {
	StreamPrefix string `path:"streamPrefix"`
	ShardIndex   string `path:"shardIndex"`
	From         string `query:"from"`
}

func (p *shardPage) check() (err error) {
	p.StreamPrefix, err = edge.Name(p.StreamPrefix, "streamPrefix")
	return err
}

// UserPath is /auth/users/:username (checked by the handler: revoke).
type UserPath struct {
	Username string `path:"username"`
}

// Inputs with a JSON body.
type (
	streamBody[B any] struct {
		StreamPath
		withBody[B]
	}
	groupBody[B any] struct {
		GroupPath
		withBody[B]
	}
	migrationBody[B any] struct {
		MigrationPath
		withBody[B]
	}
	streamMigrationBody[B any] struct {
		StreamMigrationPath
		withBody[B]
	}
	userBody[B any] struct {
		UserPath
		withBody[B]
	}
)
