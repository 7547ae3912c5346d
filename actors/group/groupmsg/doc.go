// Package groupmsg holds the messages a group actor (actors/group) answers — heartbeat,
// describe, sample, debug, delete, resize, assignment, rebalancing, release, touch, prune —
// with their replies and views. It is the vocabulary its callers use on their own terms:
// actors/router sends every request and reads every reply, actors/service builds the admin
// requests and reads the views, actors/host sends the prune tick and resizes and reads the
// debug state; groupwire gives them their protobuf form. What only the group actor uses
// (how it names a request in its logs) lives in actors/group. Data only; it imports
// membersdk/protocol and groupstate/model.
package groupmsg
