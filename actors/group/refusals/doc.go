// Package refusals holds what a group actor (actors/group) does with the rules' identity
// refusals (groupstate identity.go): the error a principal refusal stands for on the node that
// received the request (Of), and the memory that logs and counts each conflict once (Log). It
// decides nothing. It imports groupstate/model, group/groupdeps (the optional
// IdentityMetrics) and membersdk/protocol only.
package refusals
