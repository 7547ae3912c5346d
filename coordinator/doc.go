// Package coordinator is the coordinator's transport-neutral service
// boundary: the operations a transport offers (members, admin, monitoring,
// browse, debug) as Go interfaces, the error sentinels they return, and the
// request id a call carries in its context.
//
// actors/service implements Service (the host composes it). Every transport adapts
// this package and nothing else: api/ (HTTP, fiber) decodes, validates,
// authorizes, calls a Service and answers its errors with AnswerFor
// (answer.go: the HTTP status and error code of each sentinel); the Redis
// mailbox (mailbox/) does the same and sends that status and body in its
// reply. Both check decoded heartbeats with CheckHeartbeat. A transport
// never decides ownership.
//
// # What this package may import
//
// The standard library and the wire types of the protocol
// (membersdk/protocol) only: never fiber (or any other transport), never protoactor, never
// actors/ or api/ (TestServiceImportsOnlyStdlibAndWireTypes). No package
// under actors/ depends on fiber or on api/ either
// (TestNoTransportInActorsOrService): the actor shell implements Service and
// knows no transport.
//
// # Errors
//
// Service methods return the sentinels of errors.go, wrapped with context
// (match them with errors.Is). Their messages start with "coordinator: ".
// Protocol outcomes of a heartbeat (FENCED, RETRY, …) are not errors: they
// come back in the response. Any other error, and a context that ran out,
// is the transport's to answer as unavailable or internal.
package coordinator
