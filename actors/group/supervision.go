package group

import (
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Supervision. A panic in an actor is a bug; the actor is restarted with
// state it can rebuild, never with state it might have half-changed:
//
//   - Member actors are supervised by their group actor (memberSupervisor,
//     set with actor.WithSupervisor on the group actor's props). A restarted
//     member actor asks the group for its deadline (memberStarted) and
//     re-arms its lease from the group state. One that fails too often is
//     stopped by the strategy; the group then spawns a new one
//     (onMemberTerminated), so no lease is ever left without a timer.
//   - Group actors are supervised by a guardian (groupSupervisor, set with
//     actor.WithGuardian, so it applies wherever the host spawns them). A
//     restarted group actor is a new instance with empty volatile fields: its
//     member actors were stopped with the old instance, and Started
//     re-activates the group from the store (activate), re-spawning a member
//     actor per member. A group actor that fails too often is stopped; the
//     host then spawns a new one on the next request (Host.ask).
//
// The message being handled when the panic happened is not redelivered.
var (
	memberSupervisor = actor.NewOneForOneStrategy(10, 10*time.Second, restart)
	groupSupervisor  = actor.NewOneForOneStrategy(10, 10*time.Second, restart)
)

func restart(any) actor.Directive { return actor.RestartDirective }

// supervision returns the props options of a group actor.
func supervision(d *Deps) []actor.PropsOption {
	return []actor.PropsOption{
		actor.WithSupervisor(memberSupervisor),
		actor.WithGuardian(groupSupervisor),
		actor.WithReceiverMiddleware(d.groupHooks...),
		actor.WithDispatcher(actorWorkers),
	}
}

// onMemberStarted answers a (re)started member actor with its deadline.
func (a *groupActor) onMemberStarted(ctx actor.Context, msg *memberStarted) {
	if ref, ok := a.members[msg.MemberID]; ok && ref.pid.Equal(msg.PID) && a.state != nil {
		a.disarmed(msg.MemberID) // a (re)started actor has no timer
		a.armMember(ctx, msg.MemberID)
	}
}

// onMemberTerminated re-spawns a member actor its supervisor gave up on.
// Member actors the group stopped itself are no longer in a.members.
func (a *groupActor) onMemberTerminated(ctx actor.Context, who *actor.PID) {
	for id, ref := range a.members {
		if ref.pid.Equal(who) {
			a.deps.Logger.Error("member actor stopped after repeated failures; starting a new one",
				slog.String("group", a.key.String()), slog.String("member", id))
			delete(a.members, id)
			if a.state != nil {
				a.armMember(ctx, id)
			}
			return
		}
	}
}

// onRestarting runs in the failed instance before the restart: its member
// actors are stopped by the library, and must not be re-spawned.
func (a *groupActor) onRestarting() {
	a.deps.Logger.Error("group actor failed (a bug); restarting it, it re-activates from the store",
		slog.String("group", a.key.String()), slog.Int64("activation", a.activation))
	a.members = map[string]memberRef{}
}
