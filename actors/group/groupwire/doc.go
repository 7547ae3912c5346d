// Package groupwire turns the group actor's messages (group/groupmsg) into their protobuf form
// (actors/wire) and back, so that a request can cross nodes. Both ends of one trip use it on
// their own terms: actors/router, on the calling node, encodes a request with its deadline
// (RequestToWire, SetDeadline) and decodes the reply (ReplyFromWire); the group actor, on the
// node that hosts the grain, decodes the request (RequestFromWire, Deadline) and encodes its
// reply (ReplyToWire, ErrorReply). Error codes travel both ways and rebuild the persistence
// sentinels, so errors.Is works on the calling node. It imports groupmsg, actors/wire,
// membersdk/protocol and persistence only.
package groupwire
