package clusterprov

import (
	"fmt"

	"github.com/asynkron/protoactor-go/cluster"

	"github.com/redisstream/coordinator/config"
)

// New builds the cluster provider named by o.Provider (see the package
// comment). It contacts no network and opens no listener; StartMember does.
// Provider "single" is ErrSingle, an unknown name ErrUnknownProvider.
func New(o Options) (cluster.ClusterProvider, error) {
	switch o.Provider {
	case config.ProviderSingle, "":
		return nil, ErrSingle
	case config.ProviderAutomanaged:
		return newAutomanaged(o)
	case config.ProviderKubernetes:
		return newKubernetes(o)
	case config.ProviderTest:
		return newTest(o)
	}
	return nil, fmt.Errorf("%w %q (known: %s, %s, %s, %s)", ErrUnknownProvider, o.Provider,
		config.ProviderSingle, config.ProviderAutomanaged, config.ProviderKubernetes, config.ProviderTest)
}
