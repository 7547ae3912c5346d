package clusterprov

import (
	"fmt"

	"github.com/asynkron/protoactor-go/cluster"
)

// StartMember runs c.StartMember and turns its panics into an error.
// protoactor panics when the remote cannot bind its port ("failed to
// listen") and when the provider's StartMember fails (for automanaged: the
// health endpoint's port is taken). The cluster is then half started; the
// caller should log the error and exit.
func StartMember(c *cluster.Cluster) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("clusterprov: cluster start failed: %w", e)
			} else {
				err = fmt.Errorf("clusterprov: cluster start failed: %v", r)
			}
		}
	}()
	c.StartMember()
	return nil
}
