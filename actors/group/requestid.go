package group

import (
	"log/slog"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
)

// reqAttr is the requestId attribute of the request being handled (a zero
// Attr, which log handlers drop, outside a request).
func (a *groupActor) reqAttr() slog.Attr {
	if a.reqID == "" {
		return slog.Attr{}
	}
	return slog.String("requestId", a.reqID)
}

// requestIDOf is the id of the request msg carries, for the log lines the
// group writes while it handles msg: a heartbeat's requestId, an admin
// request's X-Request-Id, a resize's migration id ("" when none).
func requestIDOf(msg any) string {
	switch m := msg.(type) {
	case *groupmsg.HeartbeatRequest:
		return m.Request.RequestID
	case *groupmsg.DeleteRequest:
		return m.RequestID
	case *groupmsg.ResizeRequest:
		return m.RequestID
	case *groupmsg.AssignmentRequest:
		return m.RequestID
	case *groupmsg.RebalancingRequest:
		return m.RequestID
	}
	return ""
}
