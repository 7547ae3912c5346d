package groupstate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redisstream/coordinator/actors/groupstate/answer"
	"github.com/redisstream/coordinator/actors/groupstate/model"
)

// Scenario commands for the answers decided without evaluating a group (groupstate/answer,
// unknown.go), and the fence moves of a change:
//
//	reject <id> [proto=…] [epoch=…] [path=…]   Reject: what every group rejects alike
//	unevaluated <id> cause=<cause> [detail=…]   Unevaluated: a cause the shell observed
//	unknown-group <id> [epoch=…] [owned=…] [explicit]   UnknownGroup (group "workers" of "orders")
//	unknown-claims <id> [epoch=…] [owned=…] [young]     Group.UnknownClaims; a hold is taken
//
// The request arguments are those of heartbeat (scenario.request).

var causes = map[string]answer.Cause{
	"store-unreachable": answer.CauseStoreUnreachable, "queue-wait": answer.CauseQueueWait, "unconfirmed": answer.CauseUnconfirmed,
	"not-stored": answer.CauseNotStored, "not-answering": answer.CauseNotAnswering, "create-failed": answer.CauseCreateFailed,
	"refusing": answer.CauseRefusing, "group-limit": answer.CauseGroupLimit, "stream-missing": answer.CauseStreamMissing,
}

func (sc *scenario) runAnswers(line, cmd string, pos []string, args map[string]string,
	num func(string, int64) int64, _ func(string, time.Duration) time.Duration) (string, bool) {
	switch cmd {
	case "reject", "unevaluated", "unknown-group", "unknown-claims":
	default:
		return "", false
	}
	if sc.h == nil {
		sc.t.Fatalf("%s: run 'new' first", line)
	}
	hb := sc.request(line, pos[0], args, num)
	flag := func(name string) bool { return slices.Contains(pos[1:], name) }
	switch cmd {
	case "reject":
		r, rejected := answer.Reject(&hb)
		if !rejected {
			return "evaluated by the group", true
		}
		return fmtAnswer(r), true
	case "unevaluated":
		c, ok := causes[args["cause"]]
		if !ok {
			sc.t.Fatalf("%s: unknown cause %q", line, args["cause"])
		}
		return fmtAnswer(answer.Unevaluated(&hb, c, args["detail"])), true
	case "unknown-group":
		d := answer.UnknownGroup(&hb, "orders", "workers", flag("explicit"), sc.cfg, sc.h.now)
		out := "create the group, then evaluate the heartbeat in it"
		if !d.Create {
			out = fmtAnswer(d.Response)
		}
		return out + "\n" + fmtHold(d.Hold, !d.Hold.Until.IsZero()), true
	}
	// unknown-claims: as the group actor does after a rejection it answered UNKNOWN_MEMBER_ID.
	h, ok := sc.h.g.UnknownClaims(&hb, flag("young"), sc.h.now)
	if ok {
		sc.h.g.HoldGrantsUntil(h.Until)
	}
	return fmtHold(h, ok), true
}

// fmtAnswer prints an answer that grants nothing, with the member id it names.
func fmtAnswer(r model.Response) string {
	return fmt.Sprintf("member=%s %s", r.MemberID, fmtResp(r))
}

func fmtHold(h answer.ClaimHold, ok bool) string {
	if !ok {
		return "no hold"
	}
	return fmt.Sprintf("hold grants until +%s: %s", h.Until.Sub(t0), h.Reason)
}

// fmtChange is fmtChange with the change's fence moves when the scenario shows them.
func (sc *scenario) fmtChange(c *Change) string {
	s := fmtChange(c)
	if !sc.showFences || c == nil {
		return s
	}
	moves := make([]string, len(c.FenceMoves()))
	for i, m := range c.FenceMoves() {
		if m.Holder == "" {
			moves[i] = fmt.Sprintf("%d:-", m.Shard)
		} else {
			moves[i] = fmt.Sprintf("%d:%s@%d", m.Shard, m.Holder, m.Epoch)
		}
	}
	if len(moves) == 0 {
		return s + "\n  fences: none"
	}
	return s + "\n  fences: " + strings.Join(moves, " ")
}

// nudges prints, when the scenario shows them (new nudges=show), the members Nudges names for
// c, evaluated on the group before c is applied (as the shell does); except is the requester.
func (sc *scenario) nudges(c *Change, except string) string {
	if !sc.showNudges {
		return ""
	}
	ns := Nudges(sc.h.g, c, except, sc.h.now)
	if len(ns) == 0 {
		return "\n  nudge: none"
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = n.MemberID
		if n.Principal != "" {
			parts[i] += "(" + n.Principal + ")"
		}
	}
	return "\n  nudge: " + strings.Join(parts, " ")
}
