package main

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func (a *app) scaleCmd() *cobra.Command {
	var reason string
	var yes bool
	c := cmd("scale PREFIX COUNT", "Reshard a stream to COUNT shards (0 drains everything)", exactly("PREFIX", "COUNT"),
		func(c *cobra.Command, args []string) error {
			n, err := strconv.Atoi(args[1])
			switch {
			case err != nil:
				return usagef("COUNT %q: the shard count must be a whole number, 0 or more", args[1])
			case n < 0:
				return usagef("COUNT %s: the shard count must be 0 or more, got %d", args[1], n)
			case n == 0 && !yes:
				if err := a.confirmDrain(args[0]); err != nil {
					return err
				}
			}
			var resp protocol.ScaleResponse
			raw, err := a.c.send(c.Context(), http.MethodPost, apiPath("/coord/v1/streams", args[0], "/scale"),
				protocol.ScaleRequest{TargetShardCount: &n, RequestedBy: a.flags.requestedBy, Reason: reason}, &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			fmt.Fprintf(a.stdout, "Resharding of %s to %d shards accepted; groups: %s.\n", resp.StreamPrefix, resp.TargetShardCount, orDash(strings.Join(resp.AffectedConsumerGroups, ", ")))
			if len(resp.Migrations) > 0 {
				fmt.Fprintln(a.stdout)
				a.table(migrationHeaders, migrationRows(resp.Migrations, ""))
			}
			return nil
		})
	c.Long = `Starts resharding every group of the stream (POST /coord/v1/streams/{p}/scale).
Follow it with 'streamctl migrations PREFIX GROUP' or 'streamctl watch'.
409 when a migration is already active. COUNT 0 drains and retires every
shard: it asks for confirmation on a terminal, and needs --yes otherwise.`
	c.Example = "  streamctl scale orders 8 --reason 'peak season'\n  streamctl scale orders 0 --yes --reason 'service retired'"
	c.Flags().StringVar(&reason, "reason", "", "reason recorded with the migration")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "scale to 0 without asking for confirmation")
	c.SetFlagErrorFunc(a.scaleFlagError)
	return c
}

var migrationHeaders = []string{"ID", "GROUP", "FROM", "TO", "STATE", "REQUESTED-BY", "CREATED", "UPDATED", "WAITING"}

func migrationRows(ms []protocol.Migration, active string) [][]string {
	rows := make([][]string, len(ms))
	for i, m := range ms {
		id := m.ReshardingID
		if active != "" && id == active {
			id += " *"
		}
		rows[i] = []string{id, orDash(m.ConsumerGroup), strconv.Itoa(m.FromShardCount), strconv.Itoa(m.ToShardCount), migrationState(m.State),
			orDash(m.RequestedBy), orDash(m.CreatedAt), orDash(m.UpdatedAt), orDash(m.Waiting)}
	}
	return rows
}

// migrationState is a migration's state as tables show it: the successful
// end state DEPRECATED (the API's value) reads as completed.
func migrationState(s string) string {
	if s == protocol.MigrationDeprecated {
		return "completed (DEPRECATED)"
	}
	return s
}

// migrationPath is a migration's route: the stream's own (PREFIX ID) or a
// group's (PREFIX GROUP ID), then the parts after the id.
func migrationPath(args []string, after ...string) string {
	parts := []string{"/coord/v1/streams", args[0]}
	if len(args) == 3 {
		parts = append(parts, "groups", args[1])
	}
	parts = append(parts, "migrations", args[len(args)-1])
	return apiPath(append(parts, after...)...)
}

func (a *app) migrationsCmd() *cobra.Command {
	c := cmd("migrations PREFIX [GROUP]", "A stream's migrations, newest first (the active one marked *)", between(1, 2, "PREFIX [GROUP]"),
		func(c *cobra.Command, args []string) error {
			path := apiPath("/coord/v1/streams", args[0], "migrations")
			if len(args) == 2 {
				path = a.monPath(args[0], args[1], "migrations")
			}
			var resp protocol.MigrationsResponse
			raw, err := a.c.get(c.Context(), path, &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			active := ""
			if resp.ActiveReshardingID != nil {
				active = *resp.ActiveReshardingID
			}
			a.table(migrationHeaders, migrationRows(resp.Migrations, active))
			if active != "" {
				quoted := make([]string, 0, len(args)+1)
				for _, s := range args {
					quoted = append(quoted, shellQuote(s))
				}
				quoted = append(quoted, shellQuote(active))
				fmt.Fprintf(a.stdout, "\nactive: %s (streamctl migration %s)\n", active, strings.Join(quoted, " "))
			}
			return nil
		})
	c.Long = `Lists a stream's migrations, newest first (GET /coord/v1/streams/{p}/migrations),
also for a stream without groups. With GROUP, the same migrations as that group
sees them (404 when the group does not exist).`
	return c
}

func (a *app) migrationCmd() *cobra.Command {
	return cmd("migration PREFIX [GROUP] ID", "One migration: state, per-shard progress, history", between(2, 3, "PREFIX [GROUP] ID"),
		func(c *cobra.Command, args []string) error {
			var m protocol.Migration
			raw, err := a.c.get(c.Context(), migrationPath(args), &m)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			writeMigration(a.stdout, m)
			return nil
		})
}

func (a *app) rollbackCmd() *cobra.Command {
	var reason string
	c := cmd("rollback PREFIX [GROUP] ID", "Roll an active migration back to the previous shard count", between(2, 3, "PREFIX [GROUP] ID"),
		func(c *cobra.Command, args []string) error {
			var m protocol.Migration
			raw, err := a.c.send(c.Context(), http.MethodPost, migrationPath(args, "/rollback"),
				protocol.RollbackRequest{RequestedBy: a.flags.requestedBy, Reason: reason}, &m)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			fmt.Fprintf(a.stdout, "Rollback of %s accepted.\n\n", m.ReshardingID)
			writeMigration(a.stdout, m)
			return nil
		})
	c.Long = `Rolls a migration back (POST …/migrations/{id}/rollback): the previous shard
count is restored under the same no-loss rules. 422 when rollback is no longer
safe (the error says why), 404 for an unknown id.`
	c.Flags().StringVar(&reason, "reason", "", "reason recorded with the rollback")
	return c
}

// writeMigration renders one migration: its fields, per-shard state, history.
func writeMigration(w io.Writer, m protocol.Migration) {
	kv := [][2]string{
		{"id", m.ReshardingID}, {"stream", m.StreamPrefix}, {"group", orDash(m.ConsumerGroup)},
		{"shards", fmt.Sprintf("%d → %d", m.FromShardCount, m.ToShardCount)}, {"state", migrationState(m.State)},
		{"metadataVersion", strconv.FormatInt(m.MetadataVersion, 10)},
		{"requestedBy", orDash(m.RequestedBy)}, {"reason", orDash(m.Reason)},
		{"created", orDash(m.CreatedAt)}, {"updated", orDash(m.UpdatedAt)},
	}
	if m.RollbackRequestedBy != "" || m.RollbackReason != "" {
		kv = append(kv, [2]string{"rollback by", orDash(m.RollbackRequestedBy)}, [2]string{"rollback reason", orDash(m.RollbackReason)})
	}
	if m.Waiting != "" {
		kv = append(kv, [2]string{"waiting for", m.Waiting})
	}
	writeFields(w, kv)
	if len(m.Shards) > 0 {
		fmt.Fprintln(w, "\nSHARDS")
		rows := make([][]string, len(m.Shards))
		for i, s := range m.Shards {
			var blocked []string
			for _, b := range s.BlockedBy {
				blocked = append(blocked, fmt.Sprintf("%s(pending %d, lag %s)", b.ConsumerGroup, b.Pending, unknownNeg(b.Lag)))
			}
			rows[i] = []string{strconv.Itoa(s.ShardIndex), s.StreamKey, s.Change, s.State, orDash(s.RetiredKey), orDash(strings.Join(blocked, ", "))}
		}
		writeTable(w, []string{"SHARD", "STREAM-KEY", "CHANGE", "STATE", "RETIRED-KEY", "BLOCKED-BY"}, rows)
	}
	if len(m.History) > 0 {
		fmt.Fprintln(w, "\nHISTORY")
		rows := make([][]string, len(m.History))
		for i, h := range m.History {
			rows[i] = []string{h.At, migrationState(h.State), orDash(h.Node), orDash(h.Note)}
		}
		writeTable(w, []string{"AT", "STATE", "NODE", "NOTE"}, rows)
	}
}
