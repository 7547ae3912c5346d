package coordinator

import "context"

// Request ids. A transport gives every call the id of the request it serves
// (api/: the client's X-Request-Id, a heartbeat's requestId, or a generated
// one) in the call's context; the Service writes it in the log lines of the
// changes it makes (stream created, group created, group deleted).

type requestIDCtxKey struct{}

// WithRequestID returns ctx carrying the request id id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDCtxKey{}, id)
}

// RequestIDFrom is the request id carried by ctx, or "".
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDCtxKey{}).(string)
	return id
}
