// Package httpx holds the HTTP primitives every api package shares: the
// error answer (Error, its constructors, FromError and Write: {status,
// errorCode, message}, Retry-After, the Basic challenge) and request ids (X-Request-Id: AssignRequestID, RequestID,
// AdoptRequestID).
//
// Allowed imports: the standard library, fiber v2, coordinator (the error
// answers every transport shares: AnswerFor, StatusName) and
// membersdk/protocol. No other api package.
package httpx
