package clusterprov

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
)

// automanagedProvider finds the nodes of a cluster by polling every seed's
// health endpoint (host:manage-port of ALL nodes, this one included): the
// nodes that answer with this cluster's name are the member list. It speaks
// the protocol of protoactor's automanaged provider — GET /_health answers
// the node model as JSON, and a seed that misses one poll leaves the list —
// so nodes of either kind form one cluster over plaintext, but it is our
// own: upstream binds its endpoint on 0.0.0.0 from a goroutine that only
// logs a failed bind, and can speak neither TLS nor anything but http://.
//
// With Options.TLS the endpoint is HTTPS and requires a client certificate
// signed by the cluster CA, and the polls present this node's certificate
// and verify the seed's against the same CA: a process without a node
// certificate can neither read the membership nor answer for a node.
type automanagedProvider struct {
	bind    string // host:manage-port
	port    int    // manage-port
	seeds   []string
	refresh time.Duration
	log     *slog.Logger
	tls     tlsSource // nil: plaintext
	client  *http.Client
	scheme  string

	node   atomic.Pointer[automanaged.NodeModel] // nil until StartMember
	server *http.Server

	stopOnce sync.Once
	stop     chan struct{}
	polling  atomic.Bool
	down     sync.Map // seed → struct{}: seeds that did not answer the last poll (logged once)

	// known holds the ids of the nodes that answered the last poll (any
	// cluster name); a poll from a node not in it wakes the polling loop.
	known atomic.Pointer[map[string]struct{}]
	wake  chan struct{} // capacity 1: an early poll is due
}

// askerHeader names the node that polls (its actor system id). A node polled
// by a node it does not know yet polls its seeds at once instead of at its
// next refresh, so that a node that starts (or restarts) is in every peer's
// member list within one round of polls. Until then the new node places
// groups on itself that its peers still hold, and members heartbeating
// through it get RETRY (docs/RELIABILITY.md, "A node rejoining"). The header
// only makes a node poll sooner, at most once per wakeGap: it is no claim of
// identity, which comes from the polls themselves (and their certificates).
const askerHeader = "Rsc-Cluster-Node"

// wakeGap is the shortest time between two polls one node makes because it
// was polled by a node it did not know.
const wakeGap = 200 * time.Millisecond

var _ cluster.ClusterProvider = (*automanagedProvider)(nil)

// healthTimeout bounds one poll of one seed (upstream's value: a seed that
// does not answer within it leaves the member list).
const healthTimeout = 2 * time.Second

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
	p := &automanagedProvider{
		bind:    net.JoinHostPort(o.Host, strconv.Itoa(o.ManagePort)),
		port:    o.ManagePort,
		seeds:   append([]string(nil), o.Seeds...),
		refresh: refresh,
		log:     o.logger(),
		scheme:  "http",
		stop:    make(chan struct{}),
		wake:    make(chan struct{}, 1),
	}
	transport := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: healthTimeout, KeepAlive: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     90 * time.Second,
	}
	if o.TLS != nil {
		p.tls, p.scheme = o.TLS, "https"
		transport.TLSClientConfig = o.TLS.PeerConfig()
	}
	p.client = &http.Client{Transport: transport, Timeout: healthTimeout}
	return p, nil
}

// tlsSource is what the provider needs of tlsfiles.Source.
type tlsSource interface {
	ServerConfig(clientCA bool) *tls.Config
	PeerConfig() *tls.Config
}

// StartMember binds the health endpoint on host:manage-port (a port in use
// is an error here, not a log line) and starts polling the seeds.
func (p *automanagedProvider) StartMember(c *cluster.Cluster) error {
	host, port, err := c.ActorSystem.GetHostPort()
	if err != nil {
		return fmt.Errorf("clusterprov: automanaged: actor system address: %w", err)
	}
	ln, err := net.Listen("tcp", p.bind)
	if err != nil {
		return fmt.Errorf("clusterprov: automanaged health endpoint (cluster.host:cluster.manage-port): %w", err)
	}
	p.node.Store(automanaged.NewNode(c.Config.Name, c.ActorSystem.ID, host, port, p.port, c.GetClusterKinds()))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_health", p.health)
	p.server = &http.Server{Handler: mux, ReadHeaderTimeout: healthTimeout,
		ErrorLog: refusalLog(p.log, "cluster health endpoint (cluster.manage-port)")}
	if p.tls != nil {
		p.server.TLSConfig = p.tls.ServerConfig(true)
		ln = tls.NewListener(ln, p.server.TLSConfig)
	}
	go func() {
		if err := p.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.Error("cluster health endpoint stopped; the other nodes will drop this one from their member lists", slog.String("addr", p.bind), slog.Any("err", err))
		}
	}()
	p.log.Info("automanaged cluster health endpoint listening", slog.String("addr", ln.Addr().String()),
		slog.String("scheme", p.scheme), slog.String("advertised", net.JoinHostPort(host, strconv.Itoa(port))))
	p.startPolling(c)
	return nil
}

// StartClient polls the seeds without serving an endpoint: a client is no
// member.
func (p *automanagedProvider) StartClient(c *cluster.Cluster) error {
	p.startPolling(c)
	return nil
}

// Shutdown stops polling and closes the health endpoint (the other nodes
// drop this one at their next poll).
func (p *automanagedProvider) Shutdown(bool) error {
	p.stopOnce.Do(func() { close(p.stop) })
	if p.server != nil {
		return p.server.Close()
	}
	return nil
}

func (p *automanagedProvider) health(w http.ResponseWriter, r *http.Request) {
	if asker := r.Header.Get(askerHeader); asker != "" && !p.knows(asker) {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	n := p.node.Load()
	if n == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(n)
}

func (p *automanagedProvider) startPolling(c *cluster.Cluster) {
	if !p.polling.CompareAndSwap(false, true) {
		return
	}
	go p.pollLoop(c.Config.Name, c.MemberList.UpdateClusterTopology)
}

// pollLoop polls the seeds every refresh interval, and sooner when a node it
// does not know polls it (askerHeader), and hands the members of cluster name
// to update.
func (p *automanagedProvider) pollLoop(name string, update func(cluster.Members)) {
	for {
		polledAt := time.Now()
		if nodes := p.poll(); len(nodes) > 0 {
			known := make(map[string]struct{}, len(nodes))
			var members []*cluster.Member
			for _, n := range nodes {
				known[n.ID] = struct{}{}
				if n.ClusterName == name {
					members = append(members, &cluster.Member{Id: n.ID, Host: n.Address, Port: int32(n.Port), Kinds: n.Kinds})
				}
			}
			p.known.Store(&known)
			update(members)
		}
		select {
		case <-p.stop:
			return
		case <-time.After(p.refresh):
		case <-p.wake:
			if gap := wakeGap - time.Since(polledAt); gap > 0 {
				select {
				case <-p.stop:
					return
				case <-time.After(gap):
				}
			}
		}
	}
}

// knows reports whether node id answered the last poll.
func (p *automanagedProvider) knows(id string) bool {
	known := p.known.Load()
	if known == nil {
		return false
	}
	_, ok := (*known)[id]
	return ok
}

// poll asks every seed at once; the nodes that answered, in seed order.
func (p *automanagedProvider) poll() []*automanaged.NodeModel {
	out := make([]*automanaged.NodeModel, len(p.seeds))
	var wg sync.WaitGroup
	for i, seed := range p.seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := p.ask(seed)
			if err != nil {
				if _, was := p.down.LoadOrStore(seed, struct{}{}); !was {
					p.log.Debug("a cluster seed does not answer its health endpoint; it is not a member until it does",
						slog.String("seed", seed), slog.Any("err", err))
				}
				return
			}
			if _, was := p.down.LoadAndDelete(seed); was {
				p.log.Debug("a cluster seed answers its health endpoint again", slog.String("seed", seed), slog.String("node", n.ID))
			}
			out[i] = n
		}()
	}
	wg.Wait()
	nodes := out[:0]
	for _, n := range out {
		if n != nil {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

func (p *automanagedProvider) ask(seed string) (*automanaged.NodeModel, error) {
	ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.scheme+"://"+seed+"/_health", nil)
	if err != nil {
		return nil, err
	}
	if self := p.node.Load(); self != nil {
		req.Header.Set(askerHeader, self.ID)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var n automanaged.NodeModel
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&n); err != nil {
		return nil, fmt.Errorf("node model: %w", err)
	}
	return &n, nil
}
