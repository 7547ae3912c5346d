package protocol

// ClusterResponse is GET /coord/v1/monitoring/cluster: every coordinator
// node this node knows of (the members of its cluster and the nodes
// registered in the same store), with the groups each one hosts.
type ClusterResponse struct {
	// NodeID is the node that answered.
	NodeID string        `json:"nodeId"`
	Nodes  []ClusterNode `json:"nodes"`
}

// ClusterNode is one coordinator node.
type ClusterNode struct {
	NodeID string `json:"nodeId"`
	// Incarnation names this run of the node's process (a restart changes it).
	Incarnation string `json:"incarnation"`
	// Address is the node's cluster address ("" for cluster.provider single).
	Address string `json:"address"`
	// StartedAt is when this incarnation registered in the store (store
	// clock, RFC 3339); "" when the node is not registered (yet).
	StartedAt string `json:"startedAt"`
	// RenewedAt is its latest registration renewal (store clock).
	RenewedAt string `json:"renewedAt"`
	// Self marks the node that answered.
	Self bool `json:"self"`
	// InCluster: the node is a member of the answering node's cluster
	// (always true for the answering node). A registered node outside it
	// shares the store without forming one cluster with it.
	InCluster bool `json:"inCluster"`
	// Refusing: the node refuses to serve; RefusingReason says why.
	Refusing       bool   `json:"refusing"`
	RefusingReason string `json:"refusingReason,omitempty"`
	// Groups are the group activations the node hosts (empty when it did
	// not answer or is outside the cluster).
	Groups []ClusterGroup `json:"groups"`
}

// ClusterGroup is one group activation on a node.
type ClusterGroup struct {
	StreamPrefix    string `json:"streamPrefix"`
	ConsumerGroup   string `json:"consumerGroup"`
	ActivationEpoch int64  `json:"activationEpoch,omitempty"`
	Members         int    `json:"members"`
}
