package group

import "log/slog"

// reqAttr is the requestId attribute of the request being handled (a zero
// Attr, which log handlers drop, outside a request).
func (a *groupActor) reqAttr() slog.Attr {
	if a.reqID == "" {
		return slog.Attr{}
	}
	return slog.String("requestId", a.reqID)
}
