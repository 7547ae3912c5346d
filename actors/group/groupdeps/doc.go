// Package groupdeps holds what a group actor (actors/group) needs from the node that hosts it
// and reports to it: the Node (may it run, store-loss holds, what it tells the node), the
// young data set (NewDataSet) and the loss kinds, the Metrics sinks (with the optional
// IdentityMetrics) and the Nudger of mailbox members. Interfaces and small values only; it
// imports protoactor's actor package (for PIDs) and persistence (for group keys).
package groupdeps
