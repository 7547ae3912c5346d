// Package events holds a group's recent member events: which members a change moves into
// FENCED or EXPIRED and why (Transitions), and the bounded ring of the latest ones that the
// members view lists and the store keeps with the group (Ring). No decision reads them. It
// imports groupstate, groupstate/model, group/views (timestamps) and membersdk/protocol.
package events
