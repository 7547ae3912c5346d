// Package groupwire turns the group actor's messages (group/groupmsg) into their protobuf form
// (actors/wire) and back, so that a request can cross nodes: requests, replies, deadlines and
// error codes. It imports groupmsg, actors/wire, membersdk/protocol and persistence (for the
// error sentinels) only.
package groupwire
