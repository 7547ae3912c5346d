package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redisstream/coordinator/membersdk"
)

func main() {
	var (
		coordinators = flag.String("coordinator", "http://127.0.0.1:8080", "coordinator base URL(s), comma-separated, tried in order")
		redisAddrs   = &listFlag{vals: []string{"127.0.0.1:6379"}}
		redisCluster = flag.Bool("redis-cluster", false, "the -redis address(es) are Redis Cluster seeds (implied by several addresses)")
		memberID     = flag.String("member-id", "", "member id (default <POD_IP|hostname>-m<i>); with -members > 1, <id>-<i>")
		produceRate  = flag.Int("produce-rate", 0, "publish this many entries per second until stopped, over -keys partition keys")
		keys         = flag.Int("keys", 1000, "number of partition keys -produce-rate spreads its entries over")
		stream       = flag.String("stream", "orders", "stream prefix")
		group        = flag.String("group", "workers", "consumer group")
		members      = flag.Int("members", 1, "logical members in this process (member ids <POD_IP|hostname>-m0 …)")
		concurrency  = flag.Int("concurrency", 4, "handlers per member")
		produce      = flag.Int("produce", 0, "publish this many entries (partition keys key-0 …) before consuming")
		user         = flag.String("user", "", "Basic Auth user")
		password     = flag.String("password", "", "Basic Auth password")
		token        = flag.String("token", "", "bearer token")
		caFile       = flag.String("ca-file", "", "PEM file of the CA that signed the coordinator's HTTPS certificate (default: the system's CAs)")
		clientCert   = flag.String("client-cert", "", "PEM client certificate, for a coordinator that requires one (http.tls.client-ca-file); with -client-key")
		clientKey    = flag.String("client-key", "", "PEM private key of -client-cert")
		redisTLS     = flag.Bool("redis-tls", false, "connect to Redis over TLS (the system's CAs, or -redis-ca-file)")
		redisCA      = flag.String("redis-ca-file", "", "with -redis-tls: PEM file of the CA that signed Redis' certificate")
		redisCert    = flag.String("redis-cert-file", "", "with -redis-tls: PEM client certificate, for a Redis with tls-auth-clients yes")
		redisKey     = flag.String("redis-key-file", "", "with -redis-tls: PEM private key of -redis-cert-file")
		redisName    = flag.String("redis-server-name", "", "with -redis-tls: the name Redis' certificate must carry (default: the host dialled)")
		masterName   = flag.String("redis-master-name", "", "find the Redis primary through Sentinel: the name the Sentinels monitor it under; with -redis-sentinel, instead of -redis")
		sentinels    = &listFlag{}
		verbose      = flag.Bool("v", false, "debug logging")
		exactlyOnce  = flag.Bool("exactly-once", false, "run a small exactly-once pipeline: each entry's output ({<shard stream>}:out) commits with its acknowledgement, publishes are idempotent, and a count check (acknowledged entries = outputs, per shard) is printed every 10 s and at exit")
		transport    = flag.String("transport", membersdk.TransportHTTP, "how members heartbeat: http (-coordinator) or redis (the Redis mailbox on -redis)")
		principal    = flag.String("mailbox-principal", "-", "with -transport redis: the coordinator auth user the members speak for (\"-\" without member authentication)")
	)
	flag.Var(redisAddrs, "redis", "Redis address host:port; repeat or comma-separate for Redis Cluster seeds")
	flag.Var(sentinels, "redis-sentinel", "with -redis-master-name: Sentinel address host:port; repeat or comma-separate for all of them")
	flag.Parse()
	if *keys < 1 || *produceRate < 0 || *produce < 0 || *members < 1 {
		fmt.Fprintln(os.Stderr, "example: -keys and -members must be ≥ 1, -produce and -produce-rate ≥ 0")
		os.Exit(2)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	ro := membersdk.RedisOptions{Addrs: redisAddrs.vals, Cluster: *redisCluster, MasterName: *masterName, SentinelAddrs: sentinels.vals,
		// Secrets from the environment, never from a flag (process listings show flags).
		Password: os.Getenv("REDIS_PASSWORD"), SentinelPassword: os.Getenv("REDIS_SENTINEL_PASSWORD")}
	if (*masterName != "" || len(sentinels.vals) > 0) && !redisAddrs.set {
		ro.Addrs = nil // the default -redis address is not asked for with Sentinel
	}
	if *redisTLS {
		ro.TLS = &membersdk.RedisTLS{CAFile: *redisCA, CertFile: *redisCert, KeyFile: *redisKey, ServerName: *redisName}
	} else if *redisCA != "" || *redisCert != "" || *redisKey != "" || *redisName != "" {
		fmt.Fprintln(os.Stderr, "example: -redis-ca-file, -redis-cert-file, -redis-key-file and -redis-server-name need -redis-tls")
		os.Exit(2)
	}
	rc, err := ro.Client()
	if err != nil {
		fmt.Fprintln(os.Stderr, "example: -redis, -redis-cluster, -redis-master-name, -redis-sentinel or -redis-tls:", err)
		os.Exit(2)
	}
	defer rc.Close()
	urls := strings.Split(*coordinators, ",")
	auth := membersdk.Auth{Username: *user, Password: *password, BearerToken: *token}
	var hc *http.Client // nil: the SDK's default, trusting the system's CAs
	if *caFile != "" || *clientCert != "" || *clientKey != "" {
		var err error
		if hc, err = membersdk.HTTPClientWithCA(*caFile, *clientCert, *clientKey); err != nil {
			fmt.Fprintln(os.Stderr, "example: -ca-file, -client-cert, -client-key:", err)
			os.Exit(2)
		}
	}

	var wg sync.WaitGroup
	if *produce > 0 || *produceRate > 0 {
		pcfg := membersdk.ProducerConfig{
			CoordinatorURLs: urls, StreamPrefix: *stream, ConsumerGroup: *group, Redis: rc, Auth: auth, Logger: log, HTTPClient: hc,
		}
		if *exactlyOnce {
			pcfg.ProducerID = idempotentProducerID(*memberID) // a retried publish is written once
		}
		p, err := membersdk.NewProducer(pcfg)
		if err != nil {
			log.Error("producer", "error", err)
			os.Exit(2)
		}
		if err := produceCount(ctx, p, *produce, log); err != nil {
			log.Error("producer", "error", err)
			os.Exit(1)
		}
		if *produceRate > 0 {
			wg.Add(1)
			go func() { defer wg.Done(); produceAtRate(ctx, p, *produceRate, *keys, log) }()
		}
	}

	handler := func(ctx context.Context, m membersdk.Message) error {
		log.Info("handled", "shard", m.Shard, "id", m.ID, "epoch", m.Epoch, "delivery", m.DeliveryCount, "values", m.Values)
		return nil
	}
	if *exactlyOnce {
		handler = exactlyOnceHandler(log)
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(10 * time.Second)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					report, _ := countCheck(ctx, rc, *stream, *group)
					fmt.Print(report)
				}
			}
		}()
	}
	errs := make(chan error, *members)
	for i := range *members {
		c, err := membersdk.NewConsumer(membersdk.ConsumerConfig{
			Transactions:     membersdk.TxConfig{Enabled: *exactlyOnce},
			CoordinatorURLs:  urls,
			Transport:        *transport,
			MailboxPrincipal: mailboxPrincipal(*transport, *principal),
			StreamPrefix:     *stream,
			ConsumerGroup:    *group,
			MemberID:         memberIDOf(*memberID, i, *members),
			MemberIndex:      i,
			MemberName:       "membersdk-example",
			Concurrency:      *concurrency,
			Redis:            rc,
			Auth:             auth,
			HTTPClient:       hc,
			Logger:           log,
			OnEvent: func(e membersdk.Event) {
				// The SDK logs assignments, fences and failovers itself; this
				// hook is where metrics or a recorder would go.
				if e.Type != membersdk.EventAcked {
					log.Debug("event", "type", e.Type, "member", e.MemberID, "epoch", e.Epoch, "shard", e.Shard, "shards", e.Shards, "error", e.Err)
				}
			},
		}, handler)
		if err != nil {
			log.Error("consumer", "error", err)
			os.Exit(2)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Run(ctx); err != nil {
				errs <- fmt.Errorf("member %s: %w", c.MemberID(), err)
				cancel()
			}
		}()
	}
	wg.Wait()
	close(errs)
	code := 0
	if *exactlyOnce {
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		report, ok := countCheck(cctx, rc, *stream, *group)
		ccancel()
		fmt.Print(report)
		if !ok {
			code = 1
		}
	}
	for err := range errs {
		log.Error("member stopped", "error", err)
		code = 1
	}
	os.Exit(code)
}

// memberIDOf is the id of logical member i: empty (the SDK's default) without
// -member-id, the id itself for a single member, <id>-<i> for several.
func memberIDOf(id string, i, members int) string {
	if id == "" || members == 1 {
		return id
	}
	return fmt.Sprintf("%s-%d", id, i)
}
