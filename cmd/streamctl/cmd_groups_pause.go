package main

import (
	"fmt"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// groupsPauseCmd is 'groups pause' (paused) or 'groups resume': POST
// …/groups/{g}/rebalancing. A function, not a method: app is at its method
// budget.
func groupsPauseCmd(a *app, paused bool) *cobra.Command {
	var reason string
	use, short := "resume PREFIX GROUP", "Resume a group's rebalancing (POST …/groups/{g}/rebalancing)"
	if paused {
		use, short = "pause PREFIX GROUP", "Pause a group's rebalancing: no shard moves between live members (POST …/groups/{g}/rebalancing)"
	}
	c := cmd(use, short, exactly("PREFIX", "GROUP"),
		func(c *cobra.Command, args []string) error {
			var resp protocol.GroupResponse
			raw, err := a.c.send(c.Context(), http.MethodPost, apiPath("/coord/v1/streams", args[0], "groups", args[1], "rebalancing"),
				protocol.RebalancingRequest{Paused: &paused, RequestedBy: a.flags.requestedBy, Reason: reason}, &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			if resp.Rebalancing == protocol.RebalancingPaused {
				fmt.Fprintf(a.stdout, "Rebalancing of group %s of stream %s is paused (%s).\n"+
					"No shard moves between live members until it is resumed; new members get only free shards.\n"+
					"Expired or fenced members' shards are still reassigned.\n", resp.ConsumerGroup, resp.StreamPrefix, rebalancingSummary(resp))
				return nil
			}
			fmt.Fprintf(a.stdout, "Rebalancing of group %s of stream %s is active: members' next heartbeats rebalance the group.\n", resp.ConsumerGroup, resp.StreamPrefix)
			return nil
		})
	if paused {
		c.Long = "Freezes the group's voluntary moves: members that join are admitted and wait,\n" +
			"no member is told to give a shard up. Shards of members that expire or are\n" +
			"fenced are still reassigned. The pause is stored with the group (it survives\n" +
			"restarts and failovers); pausing a paused group keeps its first pause.\n" +
			"Resume with 'streamctl groups resume PREFIX GROUP'."
	} else {
		c.Long = "Resumes the group's rebalancing: the members' next heartbeats move shards to\nbalance the group as usual."
	}
	c.Flags().StringVar(&reason, "reason", "", "reason recorded with the change (shown while paused)")
	return c
}

// rebalancingSummary is a group's rebalancing in one phrase: "active", or
// "paused by WHO since WHEN: WHY".
func rebalancingSummary(g protocol.GroupResponse) string {
	p := g.RebalancingPause
	if g.Rebalancing != protocol.RebalancingPaused || p == nil {
		return protocol.RebalancingActive
	}
	s := "paused by " + p.RequestedBy + " since " + p.Since
	if p.Reason != "" {
		s += ": " + p.Reason
	}
	return s
}
