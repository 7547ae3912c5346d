package main

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/internal/tlsfiles"
)

// httpsListener serves ln over TLS with http.tls.*: the server certificate,
// and with client-ca-file a client certificate required of every caller.
// The files are re-read every reload interval until ctx ends; an error
// (a missing or unreadable file, a key that does not match, an expired
// certificate, a CA file without a CA) names the config key and the file.
func httpsListener(ctx context.Context, t config.HTTPTLS, ln net.Listener, logger *slog.Logger) (net.Listener, error) {
	src, err := tlsfiles.Load(tlsfiles.Files{
		Cert: t.CertFile, Key: t.KeyFile, CA: t.ClientCAFile,
		CertKey: "http.tls.cert-file", KeyKey: "http.tls.key-file", CAKey: "http.tls.client-ca-file",
	}, logger.With(slog.String("tls", "http")))
	if err != nil {
		ln.Close()
		return nil, err
	}
	go src.Watch(ctx, t.ReloadInterval, nil)
	logger.Info("serving HTTPS", slog.String("cert", t.CertFile), slog.Time("notAfter", src.NotAfter()),
		slog.Bool("clientCertificates", t.ClientCAFile != ""))
	return tls.NewListener(ln, src.ServerConfig(true)), nil
}
