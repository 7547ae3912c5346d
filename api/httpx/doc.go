// Package httpx holds the HTTP primitives every api package shares: the
// error answer (Error, its constructors, the Service-error table Sentinels,
// FromError and Write: {status, errorCode, message}, Retry-After, the Basic
// challenge) and request ids (X-Request-Id: AssignRequestID, RequestID,
// AdoptRequestID).
//
// Allowed imports: the standard library, fiber v2, coordinator (its
// sentinel errors) and membersdk/protocol. No other api package.
package httpx
