package clusterprov

import (
	"fmt"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/test"
)

// newTest builds protoactor's in-memory test provider on o.TestAgent: the
// nodes of one process that share an agent form one cluster.
func newTest(o Options) (cluster.ClusterProvider, error) {
	if o.TestAgent == nil {
		return nil, fmt.Errorf("%w: provider test needs Options.TestAgent (test.NewInMemAgent(), shared by the nodes of the test)", ErrInvalidOptions)
	}
	return test.NewTestProvider(o.TestAgent), nil
}
