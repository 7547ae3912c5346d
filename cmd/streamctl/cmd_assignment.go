package main

import (
	"fmt"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// groupsAssignmentCmd: groups assignment PREFIX GROUP uniform|capacity (a free function: the
// app type is at its method limit).
func groupsAssignmentCmd(a *app) *cobra.Command {
	var reason string
	c := cmd("assignment PREFIX GROUP uniform|capacity", "Set how a group splits its shards (POST …/groups/{g}/assignment)",
		exactly("PREFIX", "GROUP", "MODE"),
		func(c *cobra.Command, args []string) error {
			mode := args[2]
			if mode != protocol.AssignmentUniform && mode != protocol.AssignmentCapacity {
				return usagef("assignment mode %q is not one: give uniform (every member the same number of shards) or capacity (in proportion to each member's runtimeMaxConcurrency)", mode)
			}
			var resp protocol.GroupResponse
			raw, err := a.c.send(c.Context(), http.MethodPost, apiPath("/coord/v1/streams", args[0], "groups", args[1], "/assignment"),
				protocol.SetAssignmentRequest{Assignment: mode, RequestedBy: a.flags.requestedBy, Reason: reason}, &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			fmt.Fprintf(a.stdout, "Group %s of stream %s now uses %s assignment (groupEpoch %d); its members move toward the new target as in any rebalance.\n",
				resp.ConsumerGroup, resp.StreamPrefix, resp.Assignment, resp.GroupEpoch)
			return nil
		})
	c.Long = `Sets the group's assignment mode:

  uniform   every member gets the same number of shards, within one (the default)
  capacity  members get shards in proportion to the runtimeMaxConcurrency they report
            (a member reporting none counts as the group's median); a change of
            capacity that leaves every member within max(1 shard, 10%) of its share
            moves nothing

The group reassigns at once; shards move as in any rebalance (revoke before assign,
assignment.max-moves-per-round). The mode is stored with the group. 404 if the group
does not exist.`
	c.Flags().StringVar(&reason, "reason", "", "reason recorded with the change")
	return c
}
