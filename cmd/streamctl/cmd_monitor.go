package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (a *app) monPath(p, g, what string) string {
	return apiPath("/coord/v1/monitoring/streams", p, "groups", g, "/"+what)
}

func (a *app) membersCmd() *cobra.Command {
	return cmd("members PREFIX GROUP", "A group's members: state, epoch, shards, capacity, lease, transport", exactly("PREFIX", "GROUP"),
		func(c *cobra.Command, args []string) error {
			var resp protocol.MembersResponse
			raw, err := a.c.get(c.Context(), a.monPath(args[0], args[1], "members"), &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			a.table(memberHeaders, memberRows(resp.Members, time.Now()))
			return nil
		})
}

var memberHeaders = []string{"MEMBER", "NAME", "STATE", "EPOCH", "CURRENT", "TARGET", "PENDING", "REVOKING", "CAPACITY", "LEASE", "LAST-HEARTBEAT", "TRANSPORT"}

func memberRows(ms []protocol.MemberView, now time.Time) [][]string {
	sort.Slice(ms, func(i, j int) bool { return ms[i].MemberID < ms[j].MemberID })
	rows := make([][]string, 0, len(ms))
	for _, m := range ms {
		lease := m.MemberLeaseExpiresAt
		if lease == "" {
			lease = m.LeaseExpiresAt
		}
		rows = append(rows, []string{m.MemberID, orDash(m.MemberName), m.State, strconv.FormatInt(m.MemberEpoch, 10),
			shardList(m.CurrentAssignment), shardList(m.TargetAssignment), shardList(m.Pending), shardList(m.Revoking),
			fmt.Sprintf("%d/%d", m.Capacity.AvailableConcurrency, m.Capacity.RuntimeMaxConcurrency),
			until(lease, now), ago(m.LastHeartbeatAt, now), orDash(m.Transport)})
	}
	return rows
}

func (a *app) assignmentsCmd() *cobra.Command {
	return cmd("assignments PREFIX GROUP", "Target against current assignment, revocations, invariant violations", exactly("PREFIX", "GROUP"),
		func(c *cobra.Command, args []string) error {
			var resp protocol.AssignmentsResponse
			raw, err := a.c.get(c.Context(), a.monPath(args[0], args[1], "assignments"), &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			members := map[string]bool{}
			for _, m := range []map[string][]protocol.ShardID{resp.TargetAssignment, resp.CurrentAssignments, resp.RevokeProgress} {
				for id := range m {
					members[id] = true
				}
			}
			ids := make([]string, 0, len(members))
			for id := range members {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			rows := make([][]string, len(ids))
			for i, id := range ids {
				rows[i] = []string{id, shardList(resp.TargetAssignment[id]), shardList(resp.CurrentAssignments[id]), shardList(resp.RevokeProgress[id])}
			}
			a.table([]string{"MEMBER", "TARGET", "CURRENT", "REVOKING"}, rows)
			if len(resp.RevokeDetails) > 0 {
				fmt.Fprintln(a.stdout)
				var rd [][]string
				for _, d := range resp.RevokeDetails {
					rd = append(rd, []string{strconv.Itoa(d.Shard.ShardIndex), d.From, orDash(d.To), d.FromState, strconv.Itoa(d.InFlight), orDash(d.Deadline)})
				}
				a.table([]string{"SHARD", "FROM", "TO", "STATE", "IN-FLIGHT", "DEADLINE"}, rd)
			}
			if len(resp.InvariantViolations) > 0 {
				fmt.Fprintf(a.stdout, "\nINVARIANT VIOLATIONS:\n  %s\n", strings.Join(resp.InvariantViolations, "\n  "))
			}
			return nil
		})
}

func (a *app) consumptionCmd() *cobra.Command {
	return cmd("consumption PREFIX GROUP", "Members' reported progress per shard", exactly("PREFIX", "GROUP"),
		func(c *cobra.Command, args []string) error {
			var resp protocol.ConsumptionResponse
			raw, err := a.c.get(c.Context(), a.monPath(args[0], args[1], "consumption"), &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			rows := make([][]string, 0, len(resp.Rows))
			for _, r := range resp.Rows {
				rows = append(rows, []string{r.MemberID, r.MemberState, strconv.Itoa(r.Shard.ShardIndex), r.StreamKey,
					orDash(r.LastDeliveredID), orDash(r.LastAckedID), strconv.FormatInt(r.PendingCount, 10), orDash(r.UpdatedAt)})
			}
			a.table([]string{"MEMBER", "STATE", "SHARD", "STREAM-KEY", "DELIVERED", "ACKED", "PENDING", "UPDATED"}, rows)
			return nil
		})
}

func (a *app) offsetsCmd() *cobra.Command {
	c := cmd("offsets PREFIX GROUP", "Per shard: length, last id, entries read, lag, pending, consumers, memory, owners", exactly("PREFIX", "GROUP"),
		func(c *cobra.Command, args []string) error {
			var resp protocol.OffsetsResponse
			raw, err := a.c.get(c.Context(), apiPath("/coord/v1/streams", args[0], "groups", args[1], "/offsets"), &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			a.table(offsetHeaders, offsetRows(resp.Shards))
			return nil
		})
	c.Long = `What Redis reports for every shard of the group (GET …/groups/{g}/offsets),
beside the coordinator's current OWNER and TARGET owner. LAG and ENTRIES-READ
are "?" when Redis cannot tell (entries deleted, or Redis before 7).`
	return c
}

var offsetHeaders = []string{"SHARD", "OWNER", "TARGET", "LENGTH", "LAST-ID", "DELIVERED", "ENTRIES-READ", "LAG", "PENDING", "CONSUMERS", "MEMORY"}

func offsetRows(shards []protocol.ShardOffsets) [][]string {
	rows := make([][]string, 0, len(shards))
	for _, s := range shards {
		if !s.Exists {
			rows = append(rows, []string{strconv.Itoa(s.ShardIndex), orDash(s.Owner), orDash(s.TargetOwner), "missing", "-", "-", "-", "-", "-", "-", "-"})
			continue
		}
		delivered, lag, pending := orDash(s.LastDeliveredID), unknownNeg(s.Lag), strconv.FormatInt(s.Pending, 10)
		if !s.GroupExists {
			delivered, lag, pending = "no group", "-", "-"
		}
		names := make([]string, len(s.Consumers.Names))
		for i, n := range s.Consumers.Names {
			names[i] = fmt.Sprintf("%s(%d)", n.Name, n.Pending)
		}
		consumers := strconv.Itoa(s.Consumers.Count)
		if len(names) > 0 {
			consumers += " " + strings.Join(names, ",")
		}
		rows = append(rows, []string{strconv.Itoa(s.ShardIndex), orDash(s.Owner), orDash(s.TargetOwner),
			strconv.FormatInt(s.Length, 10), orDash(s.LastGeneratedID), delivered, unknownNeg(s.EntriesRead), lag, pending,
			consumers, bytesHuman(s.MemoryUsage)})
	}
	return rows
}
