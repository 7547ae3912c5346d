package group

import (
	"github.com/redisstream/coordinator/actors/group/groupdeps"
	"github.com/redisstream/coordinator/persistence"
)

// startRefusal returns why a group actor that just started must not activate
// ("" when it may). It then answers RETRY and stops:
//
//   - the node may not host groups now (shutting down, evicted, sharing its
//     store outside its cluster): the cluster places the group elsewhere
//     once it knows;
//   - the rejoin gate (docs/RELIABILITY.md, "A node rejoining"): this
//     node's list places the group elsewhere (a node whose list differs sent
//     the request), or, shortly after this node's list changed, its
//     activation is live on a reachable node that has not released it.
//     Activating would take the group from a node that takes it back at its
//     members' next heartbeat. The gate holds a group at most the settle
//     window.
func startRefusal(node groupdeps.Node, key persistence.GroupKey) string {
	if why := node.Refusing(); why != "" {
		return why
	}
	return node.PlacedElsewhere(key)
}
