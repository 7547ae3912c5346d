// Package views builds the monitoring views of one group (groupmsg.Description: group,
// members, assignments, consumption), its debug view (Debug) and ownership sample (Sample)
// from the rules' state and what its group actor knows of its members' activity. Pure: it imports groupstate, groupstate/model, group/groupmsg and
// membersdk/protocol.
package views
