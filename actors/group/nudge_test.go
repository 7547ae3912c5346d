package group

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// nudges records what the group actor hands its Nudger.
type nudges struct {
	mu  sync.Mutex
	got []string // "stream/group/member@principal"
}

func (n *nudges) Nudge(stream, group, member, principal string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, stream+"/"+group+"/"+member+"@"+principal)
}

func (n *nudges) take() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.got
	n.got = nil
	return out
}

// The shell nudges the mailbox members the rules name once a change is applied: the new owner
// when a revocation finishes, the remaining member when another leaves; never the member whose
// heartbeat made the change, never an HTTP member.
func TestShellNudgesMailboxMembersWhoseAssignmentCanGrow(t *testing.T) {
	s := bareShell(t)
	n := &nudges{}
	s.deps = &Deps{Store: s.store, Provisioner: s.prov, Rules: rules, NodeID: "test", Now: time.Now, Nudger: n}
	s.spawn()
	s.confirmLoop(time.Now)
	beat := func(id, transport string, epoch int64, owned ...int) protocol.HeartbeatResponse {
		t.Helper()
		req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "r", MemberID: id, MemberEpoch: epoch, MetadataVersion: 1,
			OwnedShards: protocol.ShardIDs(owned), Principal: "alice", Transport: transport}
		return s.ask(&groupmsg.HeartbeatRequest{PathMemberID: id, Request: req}).(*groupmsg.HeartbeatReply).Response
	}
	var r protocol.HeartbeatResponse
	for i := 0; len(r.Assignment.AssignedShards) < 4; i++ {
		require.Less(t, i, 20, "a never owned every shard")
		r = beat("a", "redis", r.MemberEpoch, protocol.Indexes(r.Assignment.AssignedShards)...)
	}
	ea := r.MemberEpoch
	rb := beat("b", "redis", 0)
	rb = beat("b", "redis", rb.MemberEpoch) // confirmed: its target is held by a
	require.Empty(t, n.take(), "nothing could be given yet")
	ra := beat("a", "redis", ea, 0, 1, 2, 3) // told to revoke 2, 3
	ra = beat("a", "redis", ra.MemberEpoch, protocol.Indexes(ra.Assignment.AssignedShards)...)
	require.Equal(t, []string{"orders/workers/b@alice"}, n.take(), "a released b's shards: b (not a) is nudged")
	rb = beat("b", "redis", rb.MemberEpoch)
	require.Len(t, rb.Assignment.AssignedShards, 2)

	leave := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "l", MemberID: "b", MemberEpoch: -1, MetadataVersion: 1,
		OwnedShards: rb.Assignment.AssignedShards, Principal: "alice", Transport: "redis"}
	s.ask(&groupmsg.HeartbeatRequest{PathMemberID: "b", Request: leave})
	require.Equal(t, []string{"orders/workers/a@alice"}, n.take(), "b's leave freed its shards for a")
	ra = beat("a", "redis", ra.MemberEpoch, protocol.Indexes(ra.Assignment.AssignedShards)...)
	require.Len(t, ra.Assignment.AssignedShards, 4)

	// An HTTP member is never nudged: c's shards freed by a's release wait for its heartbeat.
	rc := beat("c", "http", 0)
	beat("c", "http", rc.MemberEpoch)
	ra = beat("a", "redis", ra.MemberEpoch, 0, 1, 2, 3)
	beat("a", "redis", ra.MemberEpoch, protocol.Indexes(ra.Assignment.AssignedShards)...)
	require.Len(t, ra.Assignment.AssignedShards, 2, "a was told to revoke c's share")
	require.Empty(t, n.take(), "c is on HTTP")
}
