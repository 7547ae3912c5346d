package host

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence/memstore"
)

// While the node refuses requests (here: evicted), group routes answer
// coordinator.ErrUnavailable (503 with Retry-After) naming the why; the
// decision itself is the node's (actors/node).
func TestRefusalIsUnavailable(t *testing.T) {
	h := New(Options{Store: memstore.New(), Provisioner: memstore.NewProvisioner(), NodeID: "n", Rules: quickRules})
	t.Cleanup(h.Stop)
	require.NoError(t, h.router.Refusal())
	h.node.Evict("test")
	err := h.router.Refusal()
	require.ErrorIs(t, err, coordinator.ErrUnavailable)
	require.Contains(t, err.Error(), "evicted")
}
