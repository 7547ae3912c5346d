package clusterprov

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/labstack/echo"
)

// automanagedProvider is protoactor's automanaged provider with its health
// endpoint under our control. Upstream builds its own echo server bound to
// 0.0.0.0:manage-port in a goroutine that only logs a failed bind; its
// "testing" constructor instead takes an echo server, which upstream starts
// with the same 0.0.0.0 address, but echo serves on a listener already set
// on the server. So StartMember binds host:manage-port itself (an error
// there fails the start) and hands the listener over; the /_health answer is
// the node model upstream would serve, built from the same cluster fields.
// Shutdown is upstream's: it closes the echo server and with it the
// listener. Cluster.Shutdown(false) does not call it: the endpoint then
// stays open until the process exits.
type automanagedProvider struct {
	*automanaged.AutoManagedProvider
	bind   string // host:manage-port
	port   int    // manage-port
	server *echo.Echo
	node   atomic.Pointer[automanaged.NodeModel] // nil until StartMember
	log    *slog.Logger
}

var _ cluster.ClusterProvider = (*automanagedProvider)(nil)

func newAutomanaged(o Options) (*automanagedProvider, error) {
	switch {
	case len(o.Seeds) == 0:
		return nil, fmt.Errorf("%w: automanaged needs seeds (host:manage-port of every node, this one included)", ErrInvalidOptions)
	case o.ManagePort < 1 || o.ManagePort > 65535:
		return nil, fmt.Errorf("%w: automanaged needs a manage port in 1..65535, got %d", ErrInvalidOptions, o.ManagePort)
	}
	refresh := o.RefreshInterval
	if refresh <= 0 {
		refresh = DefaultRefreshInterval
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Logger.SetOutput(io.Discard)
	e.StdLogger = slog.NewLogLogger(o.logger().Handler(), slog.LevelWarn) // net/http's own errors
	p := &automanagedProvider{
		bind:   net.JoinHostPort(o.Host, strconv.Itoa(o.ManagePort)),
		port:   o.ManagePort,
		server: e,
		log:    o.logger(),
	}
	e.GET("/_health", func(c echo.Context) error {
		n := p.node.Load()
		if n == nil {
			return c.NoContent(http.StatusServiceUnavailable)
		}
		return c.JSON(http.StatusOK, n)
	})
	p.AutoManagedProvider = automanaged.NewWithTesting(refresh, o.ManagePort, e, append([]string(nil), o.Seeds...)...)
	return p, nil
}

// StartMember binds the health endpoint on host:manage-port, then starts the
// upstream member (which serves on that listener and polls every seed).
func (p *automanagedProvider) StartMember(c *cluster.Cluster) error {
	host, port, err := c.ActorSystem.GetHostPort()
	if err != nil {
		return fmt.Errorf("clusterprov: automanaged: actor system address: %w", err)
	}
	ln, err := net.Listen("tcp", p.bind)
	if err != nil {
		return fmt.Errorf("clusterprov: automanaged health endpoint (cluster.host:cluster.manage-port): %w", err)
	}
	p.server.Listener = ln
	p.node.Store(automanaged.NewNode(c.Config.Name, c.ActorSystem.ID, host, port, p.port, c.GetClusterKinds()))
	p.log.Info("automanaged cluster health endpoint listening", slog.String("addr", ln.Addr().String()),
		slog.String("advertised", net.JoinHostPort(host, strconv.Itoa(port))))
	return p.AutoManagedProvider.StartMember(c)
}
