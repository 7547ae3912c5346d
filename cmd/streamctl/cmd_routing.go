package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (a *app) routingCmd() *cobra.Command {
	c := cmd("routing PREFIX GROUP [KEY...]", "The producer routing table, or the shard each partition KEY goes to", between(2, -1, "PREFIX GROUP [KEY...]"),
		func(c *cobra.Command, args []string) error {
			var rt protocol.ProducerRouting
			raw, err := a.c.get(c.Context(), apiPath("/coord/v1/streams", args[0], "groups", args[1], "/producer-routing"), &rt)
			if err != nil {
				return err
			}
			keys := args[2:]
			if len(keys) == 0 {
				if a.jsonOut() {
					return a.printJSON(raw)
				}
				fmt.Fprintf(a.stdout, "stream %s, %d shards, metadataVersion %d, keys %s\n\n", rt.StreamPrefix, rt.ShardCount, rt.MetadataVersion, rt.StreamKeyPattern)
				rows := make([][]string, len(rt.Shards))
				for i, s := range rt.Shards {
					rows[i] = []string{strconv.Itoa(s.ShardIndex), s.StreamKey, strconv.Itoa(s.RedisSlot)}
				}
				a.table([]string{"SHARD", "STREAM-KEY", "REDIS-SLOT"}, rows)
				return nil
			}
			if rt.ShardCount < 1 {
				return fmt.Errorf("stream %s has no shards (shardCount %d): no key routes anywhere", rt.StreamPrefix, rt.ShardCount)
			}
			type keyRoute struct {
				Key             string `json:"key"`
				ShardIndex      int    `json:"shardIndex"`
				StreamKey       string `json:"streamKey"`
				RedisSlot       int    `json:"redisSlot"`
				MetadataVersion int64  `json:"metadataVersion"`
			}
			out := make([]keyRoute, len(keys))
			for i, k := range keys {
				s := int(protocol.Route(k, uint32(rt.ShardCount)))
				sk := protocol.StreamKey(rt.StreamPrefix, s)
				for _, rs := range rt.Shards { // the server's table names the key
					if rs.ShardIndex == s {
						sk = rs.StreamKey
					}
				}
				out[i] = keyRoute{Key: k, ShardIndex: s, StreamKey: sk, RedisSlot: protocol.RedisSlot(sk), MetadataVersion: rt.MetadataVersion}
			}
			if a.jsonOut() {
				return a.printJSON(mustJSON(map[string]any{"streamPrefix": rt.StreamPrefix, "shardCount": rt.ShardCount,
					"metadataVersion": rt.MetadataVersion, "routes": out}))
			}
			rows := make([][]string, len(out))
			for i, r := range out {
				rows[i] = []string{r.Key, strconv.Itoa(r.ShardIndex), r.StreamKey, strconv.Itoa(r.RedisSlot)}
			}
			a.table([]string{"KEY", "SHARD", "STREAM-KEY", "REDIS-SLOT"}, rows)
			return nil
		})
	c.Long = `Without KEY: the routing table producers fetch (GET …/groups/{g}/producer-routing).
With KEYs: the shard each partition key goes to, computed as the producers do
(MurmurHash3 x86 32 with rejection sampling over the table's shard count).
Like a producer, this creates the group on first use when groups.creation is
implicit.`
	c.Example = "  streamctl routing orders billing order-123 customer:00017"
	return c
}
