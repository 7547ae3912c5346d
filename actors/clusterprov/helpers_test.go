package clusterprov

import (
	"io"
	"log/slog"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/redisstream/coordinator/membersdk/redistest"
)

// freePort returns a free loopback port outside the kernel's ephemeral
// range (redistest.FreePort), so that a node started on it finds it free.
func freePort(t *testing.T) int {
	t.Helper()
	p, err := redistest.FreePort()
	require.NoError(t, err)
	return p
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// whereKind is a grain that answers any string with the address of the node
// hosting it: proof that a request crossed nodes.
func whereKind() *cluster.Kind {
	return cluster.NewKind("where", actor.PropsFromFunc(func(ctx actor.Context) {
		if _, ok := ctx.Message().(*wrapperspb.StringValue); ok {
			ctx.Respond(wrapperspb.String(ctx.ActorSystem().Address()))
		}
	}))
}

func newNode(t *testing.T, o Options) *cluster.Cluster {
	t.Helper()
	p, err := New(o)
	require.NoError(t, err)
	system := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return quiet }))
	cfg := cluster.Configure(o.Name, p, disthash.New(), RemoteConfig(o), cluster.WithKinds(whereKind()))
	return cluster.New(system, cfg)
}
