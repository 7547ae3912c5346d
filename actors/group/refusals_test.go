package group

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// identityCounter is a Metrics that also counts identity refusals (IdentityMetrics).
type identityCounter struct {
	nopMetrics
	conflicts, principals atomic.Int64
}

func (c *identityCounter) MemberIDConflict() { c.conflicts.Add(1) }
func (c *identityCounter) PrincipalRefused() { c.principals.Add(1) }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func identityShell(t *testing.T, m groupdeps.Metrics, log *syncBuffer, lost func(persistence.GroupKey, string, string, time.Time)) *shell {
	s := &shell{t: t, system: actor.NewActorSystem(), store: memstore.New(), prov: memstore.NewProvisioner()}
	t.Cleanup(func() {
		for _, pid := range s.pids {
			_ = s.system.Root.StopFuture(pid).Wait()
		}
		s.system.Shutdown()
	})
	_, err := s.store.CreateStream(context.Background(), persistence.StreamRecord{StreamPrefix: "orders", ShardCount: 4, MetadataVersion: 1})
	require.NoError(t, err)
	s.deps = &Deps{Store: s.store, Provisioner: s.prov, Rules: rules, NodeID: "test", Now: time.Now, Metrics: m,
		Logger: slog.New(slog.NewTextHandler(log, nil)), Node: testNode{lost: lost}}
	s.spawn()
	s.confirmLoop(time.Now)
	return s
}

func (s *shell) beatAs(id, inc, principal string, epoch int64, owned ...int) protocol.HeartbeatResponse {
	s.t.Helper()
	req := protocol.HeartbeatRequest{ProtocolVersion: 1, RequestID: "r", MemberID: id, MemberEpoch: epoch,
		OwnedShards: protocol.ShardIDs(owned), IncarnationID: inc, Principal: principal}
	return s.ask(&groupmsg.HeartbeatRequest{PathMemberID: id, Request: req}).(*groupmsg.HeartbeatReply).Response
}

// A second process on a member id is refused, writes nothing, is logged and counted once
// however often it retries, and never starts the store-loss hold; another principal's
// heartbeat comes back as errOwnedByAnotherPrincipal.
func TestIdentityRefusalsWriteNothingAndAreLoggedOnce(t *testing.T) {
	ic, log := &identityCounter{}, &syncBuffer{}
	var lost atomic.Int64
	s := identityShell(t, ic, log, func(persistence.GroupKey, string, string, time.Time) { lost.Add(1) })
	a := s.beatAs("vm-m0", "p1", "team", 0)
	a = s.beatAs("vm-m0", "p1", "team", a.MemberEpoch, 0, 1, 2, 3)
	require.Equal(t, protocol.StatusOK, a.Status)
	writes := s.store.Writes()
	for range 5 {
		r := s.beatAs("vm-m0", "p2", "team", 0)
		require.Equal(t, protocol.StatusMemberIDInUse, r.Status)
		require.Contains(t, r.Message, `"vm-m0"`)
		require.Empty(t, r.Assignment.AssignedShards)
		require.NoError(t, Refusal(r), "a protocol outcome, sent as it is")
		r = s.beatAs("vm-m0", "p2", "team", a.MemberEpoch, 0, 1, 2, 3)
		require.Equal(t, protocol.StatusMemberIDInUse, r.Status)
	}
	require.Equal(t, writes, s.store.Writes(), "refusals write nothing")
	require.Equal(t, int64(1), ic.conflicts.Load(), "one conflict, however often the duplicate retries")
	require.Equal(t, 1, strings.Count(log.String(), "two processes use one member id"))
	require.NotContains(t, log.String(), "p2", "the incarnation is never logged")
	require.Zero(t, lost.Load())

	r := s.beatAs("vm-m0", "p1", "intruder", 999, 0, 1, 2, 3)
	err := Refusal(r)
	require.ErrorIs(t, err, errOwnedByAnotherPrincipal)
	require.Contains(t, err.Error(), `"vm-m0"`)
	s.beatAs("vm-m0", "p1", "intruder", -1, 0, 1, 2, 3)
	require.Equal(t, writes, s.store.Writes(), "another principal's heartbeat and leave write nothing")
	require.Equal(t, int64(1), ic.principals.Load())
	require.Equal(t, 1, strings.Count(log.String(), "joined by another principal"))

	a = s.beatAs("vm-m0", "p1", "team", a.MemberEpoch, 0, 1, 2, 3)
	require.Equal(t, protocol.StatusOK, a.Status)
	require.Len(t, a.Assignment.AssignedShards, 4, "the first process kept everything")
	// It leaves: the duplicate's next join takes the id over, with nothing taken for store loss.
	require.Equal(t, protocol.StatusOK, s.beatAs("vm-m0", "p1", "team", -1, 0, 1, 2, 3).Status)
	b := s.beatAs("vm-m0", "p2", "team", 0)
	require.Equal(t, protocol.StatusOK, b.Status)
	require.Len(t, b.Assignment.AssignedShards, 4)
	require.Zero(t, lost.Load())

	// The check is real: a member the empty group never heard of reporting an epoch and
	// shards is what starts the hold.
	require.Equal(t, protocol.StatusOK, s.beatAs("vm-m0", "p2", "team", -1, 0, 1, 2, 3).Status)
	require.Equal(t, protocol.StatusUnknownMemberID, s.beatAs("ghost", "", "", 7, 0, 1).Status)
	require.Equal(t, int64(1), lost.Load())
}

// A client that sends no incarnationId (a reference client, an older membersdk) is told
// FENCED_MEMBER_EPOCH, a status it knows, when the id is held by another incarnation: it
// writes nothing and is logged and counted like MEMBER_ID_IN_USE.
func TestIdentityRefusalWithoutIncarnationIsFenced(t *testing.T) {
	ic, log := &identityCounter{}, &syncBuffer{}
	s := identityShell(t, ic, log, nil)
	a := s.beatAs("vm-m0", "p1", "", 0)
	a = s.beatAs("vm-m0", "p1", "", a.MemberEpoch, 0, 1, 2, 3)
	require.Equal(t, protocol.StatusOK, a.Status)
	writes := s.store.Writes()
	for range 3 {
		r := s.beatAs("vm-m0", "", "", a.MemberEpoch, 0, 1, 2, 3)
		require.Equal(t, protocol.StatusFencedMemberEpoch, r.Status)
		require.Contains(t, r.Message, `member id "vm-m0" is in use`)
		require.Empty(t, r.Assignment.AssignedShards)
	}
	require.Equal(t, writes, s.store.Writes(), "the refusal writes nothing")
	require.Equal(t, int64(1), ic.conflicts.Load())
	require.Equal(t, 1, strings.Count(log.String(), "two processes use one member id"))
	a = s.beatAs("vm-m0", "p1", "", a.MemberEpoch, 0, 1, 2, 3)
	require.Equal(t, protocol.StatusOK, a.Status)
	require.Len(t, a.Assignment.AssignedShards, 4, "the first process kept everything")
}
