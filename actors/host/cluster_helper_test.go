package host

// testNodes are the node ids this package's multi-node tests use.
var testNodes = []string{"a", "b", "c", "n", "n1", "n2", "n3", "test"}

// testCluster makes a test host a member of one simulated cluster of every
// test node (address = node id), as nodes that formed a cluster are: the node
// registry sees no conflict between them. Tests of the registry itself leave
// ClusterView nil (provider single).
func testCluster(id string) func() (string, []string) {
	return func() (string, []string) { return id, testNodes }
}
