package main

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (a *app) groupsCmd() *cobra.Command {
	g := cmd("groups [PREFIX GROUP]", "Create, list, describe, delete consumer groups", between(0, 2, "nothing, or PREFIX GROUP"),
		func(c *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return a.listGroups(c, "")
			case 2:
				return a.describeGroup(c, args[0], args[1])
			}
			return usagef("unknown command %q for %q (or give PREFIX GROUP to describe a group)", args[0], c.CommandPath())
		})
	g.Aliases = []string{"group"}
	g.Long = "Alone, lists every group; with PREFIX GROUP, describes one (as 'groups describe')."
	g.AddCommand(a.groupsCreateCmd(), a.groupsListCmd(), a.groupsDescribeCmd(), a.groupsDeleteCmd(), groupsAssignmentCmd(a))
	return g
}

func (a *app) groupsCreateCmd() *cobra.Command {
	var reason, assignment string
	c := cmd("create PREFIX GROUP", "Create a consumer group of an existing stream (POST …/groups/{g})", exactly("PREFIX", "GROUP"),
		func(c *cobra.Command, args []string) error {
			var resp protocol.GroupResponse
			raw, err := a.c.send(c.Context(), http.MethodPost, apiPath("/coord/v1/streams", args[0], "groups", args[1]),
				protocol.CreateGroupRequest{RequestedBy: a.flags.requestedBy, Reason: reason, Assignment: assignment}, &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			fmt.Fprintf(a.stdout, "Group %s of stream %s created on %d shards (groupEpoch %d, %s assignment).\n", resp.ConsumerGroup, resp.StreamPrefix, resp.ShardCount, resp.GroupEpoch, orDash(resp.Assignment))
			return nil
		})
	c.Long = "Creates the group: its Redis consumer group on every shard (reading from the\nstart of each shard), then its coordinator state. 409 if it exists."
	c.Flags().StringVar(&reason, "reason", "", "reason recorded with the change")
	c.Flags().StringVar(&assignment, "assignment", "", "uniform (default) or capacity: see 'groups assignment'")
	return c
}

func (a *app) groupsListCmd() *cobra.Command {
	return cmd("list [PREFIX]", "List consumer groups (of one stream, or all)", between(0, 1, "nothing, or PREFIX"),
		func(c *cobra.Command, args []string) error {
			p := ""
			if len(args) == 1 {
				p = args[0]
			}
			return a.listGroups(c, p)
		})
}

var groupHeaders = []string{"STREAM", "GROUP", "STATE", "SHARDS", "GROUP-EPOCH", "ASSIGN-EPOCH", "METADATA", "MEMBERS", "MIGRATION"}

func groupRows(gs []protocol.GroupResponse) [][]string {
	rows := make([][]string, 0, len(gs))
	for _, g := range gs {
		rows = append(rows, []string{g.StreamPrefix, g.ConsumerGroup, g.State, strconv.Itoa(g.ShardCount),
			strconv.FormatInt(g.GroupEpoch, 10), strconv.FormatInt(g.AssignmentEpoch, 10), strconv.FormatInt(g.MetadataVersion, 10),
			strconv.Itoa(len(g.TargetAssignmentSummary)), migrationSummary(g.ActiveMigration)})
	}
	return rows
}

func (a *app) listGroups(c *cobra.Command, prefix string) error {
	var resp protocol.GroupsResponse
	raw, err := a.c.get(c.Context(), "/coord/v1/monitoring/groups", &resp)
	if err != nil {
		return err
	}
	gs := resp.Groups
	if prefix != "" {
		gs = gs[:0:0]
		for _, g := range resp.Groups {
			if g.StreamPrefix == prefix {
				gs = append(gs, g)
			}
		}
	}
	if a.jsonOut() {
		if prefix == "" {
			return a.printJSON(raw)
		}
		return a.printJSON(mustJSON(protocol.GroupsResponse{Groups: append([]protocol.GroupResponse{}, gs...)}))
	}
	a.table(groupHeaders, groupRows(gs))
	return nil
}

func (a *app) groupsDescribeCmd() *cobra.Command {
	return cmd("describe PREFIX GROUP", "Show a group: state, epochs, shard count, members' shares", exactly("PREFIX", "GROUP"),
		func(c *cobra.Command, args []string) error { return a.describeGroup(c, args[0], args[1]) })
}

func (a *app) describeGroup(c *cobra.Command, p, g string) error {
	var resp protocol.GroupResponse
	raw, err := a.c.get(c.Context(), apiPath("/coord/v1/monitoring/streams", p, "groups", g), &resp)
	if err != nil {
		return err
	}
	if a.jsonOut() {
		return a.printJSON(raw)
	}
	writeFields(a.stdout, [][2]string{
		{"stream", resp.StreamPrefix}, {"group", resp.ConsumerGroup}, {"state", resp.State},
		{"shards", strconv.Itoa(resp.ShardCount)}, {"groupEpoch", strconv.FormatInt(resp.GroupEpoch, 10)},
		{"assignmentEpoch", strconv.FormatInt(resp.AssignmentEpoch, 10)}, {"metadataVersion", strconv.FormatInt(resp.MetadataVersion, 10)},
		{"assignment", orDash(resp.Assignment)}, {"migration", migrationSummary(resp.ActiveMigration)},
	})
	members := map[string]bool{}
	for m := range resp.TargetAssignmentSummary {
		members[m] = true
	}
	for m := range resp.CurrentAssignmentSummary {
		members[m] = true
	}
	if len(members) == 0 {
		return nil
	}
	ids := make([]string, 0, len(members))
	for m := range members {
		ids = append(ids, m)
	}
	sort.Strings(ids)
	rows := make([][]string, len(ids))
	for i, m := range ids {
		rows[i] = []string{m, strconv.Itoa(resp.TargetAssignmentSummary[m]), strconv.Itoa(resp.CurrentAssignmentSummary[m])}
	}
	fmt.Fprintln(a.stdout)
	a.table([]string{"MEMBER", "TARGET-SHARDS", "CURRENT-SHARDS"}, rows)
	return nil
}

func (a *app) groupsDeleteCmd() *cobra.Command {
	var reason string
	var force bool
	c := cmd("delete PREFIX GROUP", "Delete a group's coordinator state (DELETE …/groups/{g})", exactly("PREFIX", "GROUP"),
		func(c *cobra.Command, args []string) error {
			var resp protocol.DeleteGroupResponse
			raw, err := a.c.send(c.Context(), http.MethodDelete, apiPath("/coord/v1/streams", args[0], "groups", args[1]),
				protocol.DeleteGroupRequest{RequestedBy: a.flags.requestedBy, Reason: reason, Force: force}, &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			fmt.Fprintf(a.stdout, "Group %s of stream %s deleted (its Redis consumer groups on the shards are kept).\n", resp.ConsumerGroup, resp.StreamPrefix)
			return nil
		})
	c.Long = "Deletes the group's coordinator state. Refused (409) while it has live members\nunless --force. The Redis consumer groups on the shards are kept: they hold the\ndata plane's positions."
	c.Flags().StringVar(&reason, "reason", "", "reason recorded with the change")
	c.Flags().BoolVar(&force, "force", false, "delete even with live members")
	return c
}
