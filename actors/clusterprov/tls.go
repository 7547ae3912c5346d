package clusterprov

import (
	"context"
	"log"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Mutual TLS between nodes (Options.TLS, config cluster.tls.*): the actor
// remote (gRPC on cluster.port) and the automanaged health endpoint
// (cluster.manage-port) require a client certificate whose chain leads to
// the cluster CA, and present this node's certificate, which the other
// nodes check against the same CA. The certificate files are re-read when
// they change (tlsfiles.Source.Watch): new connections use the new ones.
//
// Peers are reached by address (pod IPs, hosts of the seeds), which node
// certificates do not always name, so a peer is checked by its chain alone:
// the cluster CA must sign nothing but coordinator nodes.

// remoteTLS returns the remote's server and dial options for o.TLS (none
// when it is nil: plaintext, as protoactor's default).
func remoteTLS(o Options) []remote.ConfigOption {
	if o.TLS == nil {
		return nil
	}
	server := &refusingCreds{TransportCredentials: credentials.NewTLS(o.TLS.ServerConfig(true)), log: o.logger()}
	return []remote.ConfigOption{
		remote.WithServerOptions(grpc.Creds(server)),
		remote.WithDialOptions(grpc.WithTransportCredentials(credentials.NewTLS(o.TLS.PeerConfig()))),
	}
}

// refusingCreds logs every connection the remote refuses in the TLS
// handshake — no certificate, one the cluster CA did not sign, an expired
// one — with the peer's address and the reason (which names the
// certificate's subject when there was one), at most once a minute per peer
// host and reason.
type refusingCreds struct {
	credentials.TransportCredentials
	log   *slog.Logger
	limit refusalLimit
}

func (c *refusingCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := c.TransportCredentials.ServerHandshake(raw)
	if err != nil && c.limit.allow(raw.RemoteAddr().String(), err.Error(), time.Now()) {
		c.log.Warn("refused a connection to the actor remote (cluster.port): no valid node certificate; a process that is not a node of this cluster, or a node whose certificate the cluster CA (cluster.tls.ca-file) does not sign",
			slog.String("peer", raw.RemoteAddr().String()), slog.Any("err", err))
	}
	return conn, info, err
}

func (c *refusingCreds) Clone() credentials.TransportCredentials {
	return &refusingCreds{TransportCredentials: c.TransportCredentials.Clone(), log: c.log}
}

// refusalLimit allows one log line a minute per peer host and reason: a
// scanner retrying does not flood the log, and every new reason (another
// certificate, say) is still told.
type refusalLimit struct {
	mu   sync.Mutex
	last map[string]time.Time
}

func (l *refusalLimit) allow(addr, reason string, now time.Time) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host += "\x00" + reason
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last = map[string]time.Time{}
	}
	if t, ok := l.last[host]; ok && now.Sub(t) < time.Minute {
		return false
	}
	if len(l.last) > 1024 { // a scan from many addresses: start over rather than grow
		clear(l.last)
	}
	l.last[host] = now
	return true
}

// refusalLog is the ErrorLog of an HTTP server behind TLS: net/http reports
// a failed handshake as "http: TLS handshake error from ADDR: REASON"; that
// becomes a WARN naming the peer (limited as above), anything else a DEBUG
// line.
func refusalLog(lg *slog.Logger, what string) *log.Logger {
	w := &refusalWriter{log: lg, what: what}
	return log.New(w, "", 0)
}

type refusalWriter struct {
	log   *slog.Logger
	what  string
	limit refusalLimit
}

func (w *refusalWriter) Write(b []byte) (int, error) {
	line := strings.TrimSpace(string(b))
	const prefix = "http: TLS handshake error from "
	if rest, ok := strings.CutPrefix(line, prefix); ok {
		addr, reason, _ := strings.Cut(rest, ": ")
		if w.limit.allow(addr, reason, time.Now()) {
			w.log.Warn("refused a connection to the "+w.what+": no valid node certificate",
				slog.String("peer", addr), slog.String("err", reason))
		}
		return len(b), nil
	}
	w.log.LogAttrs(context.Background(), slog.LevelDebug, line, slog.String("server", w.what))
	return len(b), nil
}
