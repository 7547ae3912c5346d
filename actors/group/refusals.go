package group

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/actors/groupstate/model"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Identity refusals (groupstate identity.go): a second live process on one member id
// (MEMBER_ID_IN_USE) and a heartbeat from a principal other than the one that joined the
// member. The rules decide; the shell logs each conflict once (refusalLog), counts it, and turns
// the principal refusal into an error (Refusal), which actors/service hands the front as
// coordinator.ErrMemberOwnedByAnotherPrincipal (HTTP 403).

// errOwnedByAnotherPrincipal: a heartbeat or leave for a member id another principal joined;
// nothing changed. Refusal returns it wrapped with the rules' message.
var errOwnedByAnotherPrincipal = errors.New("group: member is owned by another principal")

// Refusal returns the error a group's answer stands for, nil for a protocol outcome that is
// sent to the member as it is. The answer crosses nodes as a protocol response (its status
// string), so the node that received the request calls this on whatever it got back.
func Refusal(resp protocol.HeartbeatResponse) error {
	if resp.Status == protocol.Status(model.StatusOwnedByAnotherPrincipal) {
		return fmt.Errorf("%w: %s", errOwnedByAnotherPrincipal, resp.Message)
	}
	return nil
}

// maxRefusalsLogged bounds the refusals remembered per group; past it the memory starts over
// (a conflict may then be logged and counted again, never unboundedly often per heartbeat).
const maxRefusalsLogged = 256

// refusalLog remembers which refusals of one group were logged. The zero value is ready.
type refusalLog struct{ seen map[string]struct{} }

// first reports whether key is new, and remembers it.
func (l *refusalLog) first(key string) bool {
	if _, ok := l.seen[key]; ok {
		return false
	}
	if l.seen == nil || len(l.seen) >= maxRefusalsLogged {
		l.seen = make(map[string]struct{})
	}
	l.seen[key] = struct{}{}
	return true
}

// note logs and counts (when metrics is a groupdeps.IdentityMetrics) an identity refusal of
// group the first time it is seen. The incarnation is part of the key but never written out:
// it would let a reader of the log pose as the process.
func (l *refusalLog) note(logger *slog.Logger, metrics groupdeps.Metrics, group string, req protocol.HeartbeatRequest, r model.Response) {
	im, _ := metrics.(groupdeps.IdentityMetrics)
	switch {
	case r.IDInUse:
		if !l.first("inc\x00" + req.MemberID + "\x00" + req.IncarnationID) {
			return
		}
		logger.Error("two processes use one member id: the second is refused and reads nothing until the id is free",
			"group", group, "memberId", req.MemberID, "memberEpoch", req.MemberEpoch,
			"meaning", "the member that joined first keeps its shards; the other process (same memberId, another incarnationId) gets MEMBER_ID_IN_USE (FENCED_MEMBER_EPOCH if it sends no incarnationId) on every heartbeat and takes over only after the first leaves or its lease expires",
			"action", "give each process its own memberId (membersdk: leave ConsumerConfig.MemberID empty, or set POD_IP; other clients: make the id unique per process)")
		if im != nil {
			im.MemberIDConflict()
		}
	case r.Status == model.StatusUnreleasedInstanceID:
		if !l.first("instance\x00" + req.InstanceID + "\x00" + req.MemberID) {
			return
		}
		logger.Error("two processes use one instance id: the second is refused and reads nothing until the instance is free",
			"group", group, "instanceId", req.InstanceID, "memberId", req.MemberID,
			"meaning", "the member holding the instance keeps its shards; the other process gets UNRELEASED_INSTANCE_ID on every join and takes over only after the first leaves, hands the instance over with a temporary leave, or its lease expires",
			"action", "give each process its own instance id (membersdk: ConsumerConfig.InstanceID, e.g. the pod name)")
	case r.Status == model.StatusOwnedByAnotherPrincipal:
		if !l.first("principal\x00" + req.MemberID + "\x00" + req.Principal) {
			return
		}
		logger.Warn("heartbeat refused: the member was joined by another principal",
			"group", group, "memberId", req.MemberID, "principal", req.Principal, "memberEpoch", req.MemberEpoch,
			"meaning", "nothing changed: the member keeps its shards, epoch and lease; the caller got 403 MEMBER_OWNED_BY_ANOTHER_PRINCIPAL",
			"action", "if this principal is not expected to run that member, treat it as an attempt to disturb another team's member; otherwise run each member id under one credential")
		if im != nil {
			im.PrincipalRefused()
		}
	}
}
