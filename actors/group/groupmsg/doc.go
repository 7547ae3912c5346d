// Package groupmsg holds the messages a group actor (actors/group) answers — heartbeat,
// describe, sample, debug, delete, resize, release, touch, prune — and their replies and
// views, the vocabulary its callers (router, service, host) send. Data only; it imports
// membersdk/protocol and groupstate/model.
package groupmsg
