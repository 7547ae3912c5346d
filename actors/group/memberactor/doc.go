// Package memberactor holds the member actor (one per member, spawned and supervised by its
// group actor in actors/group), its small mailbox, and the messages it exchanges with its group
// actor (Started, Due, Arm). It holds no rules: its timer is the member's next deadline. It
// imports protoactor and group/dispatch only.
package memberactor
