package main

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Streams are listed and described by GET /coord/v1/streams[/{p}] and
// deleted (when empty) by DELETE /coord/v1/streams/{p}.

func (a *app) streamsCmd() *cobra.Command {
	g := group("streams", "Create, list, describe, delete streams", "stream")
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
	c := cmd("list", "List every stream (GET /coord/v1/streams)", noArgs,
		func(c *cobra.Command, _ []string) error {
			var resp protocol.StreamsResponse
			raw, err := a.c.get(c.Context(), "/coord/v1/streams", &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			var rows [][]string
			for _, v := range resp.Streams {
				rows = append(rows, []string{v.StreamPrefix, shardsText(v), strconv.FormatInt(v.MetadataVersion, 10), v.CreatedAt, migrationSummary(v.ActiveMigration)})
			}
			a.table([]string{"STREAM", "SHARDS", "METADATA", "CREATED", "MIGRATION"}, rows)
			return nil
		})
	c.Long = "Lists every stream with its shard count (routing; \"4 (+2 draining)\" while a\nscale-in's removed shards drain), metadata version and active migration."
	return c
}

// shardsText is the routing shard count, with the draining ones of a scale-in.
func shardsText(v protocol.StreamView) string {
	if v.ConsumedShardCount > v.ShardCount {
		return fmt.Sprintf("%d (+%d draining)", v.ShardCount, v.ConsumedShardCount-v.ShardCount)
	}
	return strconv.Itoa(v.ShardCount)
}

func migrationSummary(m *protocol.Migration) string {
	if m == nil {
		return "-"
	}
	return fmt.Sprintf("%s %d→%d %s", m.ReshardingID, m.FromShardCount, m.ToShardCount, m.State)
}

func (a *app) streamsDescribeCmd() *cobra.Command {
	c := cmd("describe PREFIX", "Show a stream: shard counts, metadata version, migration and groups", exactly("PREFIX"),
		func(c *cobra.Command, args []string) error {
			p := args[0]
			var v protocol.StreamView
			raw, err := a.c.get(c.Context(), apiPath("/coord/v1/streams", p), &v)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			writeFields(a.stdout, [][2]string{{"stream", v.StreamPrefix}, {"shards", shardsText(v)},
				{"metadataVersion", strconv.FormatInt(v.MetadataVersion, 10)}, {"keys", v.StreamKeyPattern},
				{"created", v.CreatedAt + " by " + v.CreatedBy}, {"migration", migrationSummary(v.ActiveMigration)}})
			if len(v.Groups) == 0 {
				return nil
			}
			by, _, err := a.groupsByStream(c)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout)
			a.table(groupHeaders, groupRows(by[p]))
			return nil
		})
	c.Long = "Shows a stream (GET /coord/v1/streams/{p}; exit 3 if unknown) and its groups."
	return c
}

func (a *app) streamsDeleteCmd() *cobra.Command {
	var reason string
	c := cmd("delete PREFIX", "Delete a stream with 0 shards and no groups (DELETE /coord/v1/streams/{p})", exactly("PREFIX"),
		func(c *cobra.Command, args []string) error {
			var resp protocol.DeleteStreamResponse
			raw, err := a.c.send(c.Context(), http.MethodDelete, apiPath("/coord/v1/streams", args[0]),
				protocol.DeleteStreamRequest{RequestedBy: a.flags.requestedBy, Reason: reason}, &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			fmt.Fprintf(a.stdout, "Stream %s deleted.\n", resp.StreamPrefix)
			return nil
		})
	c.Long = `Deletes a stream that has 0 shards (none still draining), no migration in
progress and no groups. Otherwise nothing is deleted and the coordinator says
what to do first (409 STREAM_NOT_EMPTY, exit 1): scale the stream to 0
(streamctl scale PREFIX 0 --yes) and wait for the migration to finish, and
delete its groups (streamctl groups delete PREFIX GROUP). Exit 3 if unknown.`
	c.Example = "  streamctl streams delete orders --reason 'service retired'"
	c.Flags().StringVar(&reason, "reason", "", "reason recorded with the change")
	return c
}
