package main

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (a *app) messagesCmd() *cobra.Command {
	var from string
	var count, pages int
	c := cmd("messages PREFIX SHARD", "Read one page (or more) of a shard stream, oldest first", exactly("PREFIX", "SHARD"),
		func(c *cobra.Command, args []string) error {
			shard, err := strconv.Atoi(args[1])
			if err != nil || shard < 0 {
				return usagef("SHARD %q: must be an integer ≥ 0", args[1])
			}
			if pages < 0 {
				return usagef("--pages %d: must be ≥ 0 (0: until the end)", pages)
			}
			cursor := from
			var all []protocol.StreamMessage
			var last protocol.MessagesResponse
			var raws [][]byte
			for page := 0; pages == 0 || page < pages; page++ {
				q := url.Values{}
				q.Set("from", cursor)
				if c.Flags().Changed("count") {
					q.Set("count", strconv.Itoa(count))
				}
				var resp protocol.MessagesResponse
				raw, err := a.c.get(c.Context(), apiPath("/coord/v1/streams", args[0], "shards", strconv.Itoa(shard), "/messages?"+q.Encode()), &resp)
				if err != nil {
					return err
				}
				raws = append(raws, raw)
				all = append(all, resp.Messages...)
				last = resp
				if resp.NextCursor == nil {
					break
				}
				cursor = *resp.NextCursor
			}
			if a.jsonOut() {
				if len(raws) == 1 {
					return a.printJSON(raws[0])
				}
				last.Messages = all
				return a.printJSON(mustJSON(last))
			}
			rows := make([][]string, len(all))
			for i, m := range all {
				rows[i] = []string{m.ID, kvFields(m.Fields)}
			}
			a.table([]string{"ID", "FIELDS"}, rows)
			if last.NextCursor != nil {
				fmt.Fprintf(a.stderr, "more: streamctl messages %s %d --from %s\n", shellQuote(args[0]), shard, *last.NextCursor)
			}
			return nil
		})
	c.Long = `Reads a shard stream with XRANGE through GET …/streams/{p}/shards/{i}/messages.
--from is an exclusive cursor: "-" (the start) or the id of the last message
seen. When more messages follow, the command to read them is printed on stderr.`
	c.Example = "  streamctl messages orders 3 --count 20\n  streamctl messages orders 3 --from 1700000000000-0 --pages 0 -o json"
	c.Flags().StringVar(&from, "from", "-", "exclusive cursor: \"-\" or an entry id")
	c.Flags().IntVar(&count, "count", 50, "messages per page (server bound: limits.browse-max-count)")
	c.Flags().IntVar(&pages, "pages", 1, "pages to read (0: until the end)")
	return c
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == ':' || r == '/' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
