package main

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/api/protocol"
)

// The coordinator has no route that lists, describes or deletes a stream:
// list and describe derive from the groups (GET /coord/v1/monitoring/groups)
// and the messages route (which answers 404 STREAM_NOT_FOUND); delete says
// what to do instead.

func (a *app) streamsCmd() *cobra.Command {
	g := group("streams", "Create, list, describe streams", "stream")
	g.AddCommand(a.streamsCreateCmd(), a.streamsListCmd(), a.streamsDescribeCmd(), a.streamsDeleteCmd())
	return g
}

func (a *app) streamsCreateCmd() *cobra.Command {
	var shards int
	var reason string
	c := cmd("create PREFIX", "Create a stream: provision its shard streams (POST /coord/v1/streams/{p})", exactly("PREFIX"),
		func(c *cobra.Command, args []string) error {
			req := protocol.CreateStreamRequest{RequestedBy: a.flags.requestedBy, Reason: reason}
			if c.Flags().Changed("shards") {
				if shards < 1 {
					return usagef("--shards %d: must be at least 1", shards)
				}
				req.InitialShardCount = &shards
			}
			var resp protocol.CreateStreamResponse
			raw, err := a.c.send(c.Context(), http.MethodPost, apiPath("/coord/v1/streams", args[0]), req, &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			fmt.Fprintf(a.stdout, "Stream %s created: %d shards (%s:0 … %s:%d), metadataVersion %d.\n",
				resp.StreamPrefix, resp.ShardCount, resp.StreamPrefix, resp.StreamPrefix, resp.ShardCount-1, resp.MetadataVersion)
			return nil
		})
	c.Example = "  streamctl streams create orders --shards 8 --reason 'new service'"
	c.Flags().IntVar(&shards, "shards", 0, "initial shard count (default: the server's defaults.initial-shard-count)")
	c.Flags().StringVar(&reason, "reason", "", "reason recorded with the change")
	return c
}

// groupsByStream lists every group, by stream prefix.
func (a *app) groupsByStream(c *cobra.Command) (map[string][]protocol.GroupResponse, []byte, error) {
	var resp protocol.GroupsResponse
	raw, err := a.c.get(c.Context(), "/coord/v1/monitoring/groups", &resp)
	if err != nil {
		return nil, nil, err
	}
	out := map[string][]protocol.GroupResponse{}
	for _, g := range resp.Groups {
		out[g.StreamPrefix] = append(out[g.StreamPrefix], g)
	}
	return out, raw, nil
}

func (a *app) streamsListCmd() *cobra.Command {
	c := cmd("list", "List streams that have consumer groups (derived from the groups)", noArgs,
		func(c *cobra.Command, _ []string) error {
			fmt.Fprintln(a.stderr, "streamctl: note: the coordinator has no stream-list route; streams without a consumer group are not shown")
			by, _, err := a.groupsByStream(c)
			if err != nil {
				return err
			}
			names := make([]string, 0, len(by))
			for p := range by {
				names = append(names, p)
			}
			sort.Strings(names)
			if a.jsonOut() {
				type row struct {
					StreamPrefix    string              `json:"streamPrefix"`
					ShardCount      int                 `json:"shardCount"`
					MetadataVersion int64               `json:"metadataVersion"`
					Groups          []string            `json:"groups"`
					ActiveMigration *protocol.Migration `json:"activeMigration"`
				}
				rows := []row{}
				for _, p := range names {
					r := streamRow(by[p])
					rows = append(rows, row{p, r.shards, r.version, r.groups, r.migration})
				}
				return a.printJSON(mustJSON(map[string]any{"streams": rows}))
			}
			var rows [][]string
			for _, p := range names {
				r := streamRow(by[p])
				rows = append(rows, []string{p, strconv.Itoa(r.shards), strconv.FormatInt(r.version, 10), strconv.Itoa(len(r.groups)), migrationSummary(r.migration)})
			}
			a.table([]string{"STREAM", "SHARDS", "METADATA", "GROUPS", "MIGRATION"}, rows)
			return nil
		})
	c.Long = "Lists the streams that have at least one consumer group, from GET\n/coord/v1/monitoring/groups: the coordinator has no route that lists streams,\nso a stream without groups is not shown (a note on stderr says so)."
	return c
}

type streamSummary struct {
	shards    int
	version   int64
	groups    []string
	migration *protocol.Migration
}

// streamRow summarizes a stream from its groups (the highest metadata
// version wins: groups follow a reshard through heartbeats).
func streamRow(gs []protocol.GroupResponse) streamSummary {
	var s streamSummary
	s.groups = []string{}
	for _, g := range gs {
		s.groups = append(s.groups, g.ConsumerGroup)
		if g.MetadataVersion >= s.version {
			s.version, s.shards = g.MetadataVersion, g.ShardCount
		}
		if g.ActiveMigration != nil {
			s.migration = g.ActiveMigration
		}
	}
	sort.Strings(s.groups)
	return s
}

func migrationSummary(m *protocol.Migration) string {
	if m == nil {
		return "-"
	}
	return fmt.Sprintf("%s %d→%d %s", m.ReshardingID, m.FromShardCount, m.ToShardCount, m.State)
}

func (a *app) streamsDescribeCmd() *cobra.Command {
	c := cmd("describe PREFIX", "Show a stream: whether it exists, its shard count and groups", exactly("PREFIX"),
		func(c *cobra.Command, args []string) error {
			p := args[0]
			// The messages route answers 404 STREAM_NOT_FOUND for an unknown
			// stream and creates nothing.
			if _, err := a.c.get(c.Context(), apiPath("/coord/v1/streams", p, "shards", "0", "/messages?count=1"), nil); err != nil {
				var ae *apiError
				if !(errors.As(err, &ae) && ae.Code == protocol.CodeShardNotFound) {
					return err
				}
			}
			by, _, err := a.groupsByStream(c)
			if err != nil {
				return err
			}
			gs := by[p]
			r := streamRow(gs)
			if a.jsonOut() {
				return a.printJSON(mustJSON(map[string]any{"streamPrefix": p, "exists": true, "shardCount": nullIfNoGroups(len(gs), r.shards),
					"metadataVersion": nullIfNoGroups(len(gs), r.version), "groups": gs, "activeMigration": r.migration}))
			}
			shards, version := "unknown (no consumer group reports it)", "unknown"
			if len(gs) > 0 {
				shards, version = strconv.Itoa(r.shards), strconv.FormatInt(r.version, 10)
			}
			writeFields(a.stdout, [][2]string{{"stream", p}, {"shards", shards}, {"metadataVersion", version},
				{"keys", p + ":{shardIndex}"}, {"migration", migrationSummary(r.migration)}})
			if len(gs) > 0 {
				fmt.Fprintln(a.stdout)
				a.table(groupHeaders, groupRows(gs))
			}
			return nil
		})
	c.Long = "Checks that the stream exists (GET …/streams/{p}/shards/0/messages, which answers\n404 for an unknown stream) and shows its groups with their shard count and\nmetadata version. The coordinator has no route that describes a stream, so\nthe shard count of a stream without groups is unknown here."
	return c
}

func nullIfNoGroups[T any](n int, v T) any {
	if n == 0 {
		return nil
	}
	return v
}

func (a *app) streamsDeleteCmd() *cobra.Command {
	c := cmd("delete PREFIX", "Not available: the coordinator has no route that deletes a stream", exactly("PREFIX"),
		func(c *cobra.Command, args []string) error {
			return fmt.Errorf("cannot delete stream %s: the coordinator has no route that deletes a stream (no DELETE /coord/v1/streams/{prefix}). "+
				"To empty it, scale it to 0 shards (streamctl scale %s 0), which drains and retires every shard, and delete its groups (streamctl groups delete)", args[0], args[0])
		})
	c.Long = "The coordinator has no route that deletes a stream; this command says so and\nexits 1. Scale the stream to 0 shards to drain and retire its shard streams,\nand delete its groups."
	return c
}
