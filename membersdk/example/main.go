// Command example runs one or more member-SDK consumers (and optionally a
// producer) against a coordinator and logs what they handle.
//
//	go run ./membersdk/example -coordinator http://127.0.0.1:8080 \
//	    -redis 127.0.0.1:6379 -stream orders -group workers -members 2 -produce 100
//
// Stop it with Ctrl-C: the members drain and leave the group gracefully.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk"
)

func main() {
	var (
		coordinators = flag.String("coordinator", "http://127.0.0.1:8080", "coordinator base URL(s), comma-separated, tried in order")
		redisAddr    = flag.String("redis", "127.0.0.1:6379", "Redis address")
		stream       = flag.String("stream", "orders", "stream prefix")
		group        = flag.String("group", "workers", "consumer group")
		members      = flag.Int("members", 1, "logical members in this process (member ids <POD_IP|hostname>-m0 …)")
		concurrency  = flag.Int("concurrency", 4, "handlers per member")
		produce      = flag.Int("produce", 0, "publish this many entries (partition keys key-0 …) before consuming")
		user         = flag.String("user", "", "Basic Auth user")
		password     = flag.String("password", "", "Basic Auth password")
		token        = flag.String("token", "", "bearer token")
		verbose      = flag.Bool("v", false, "debug logging")
	)
	flag.Parse()
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	rc := redis.NewClient(&redis.Options{Addr: *redisAddr})
	defer rc.Close()
	urls := strings.Split(*coordinators, ",")
	auth := membersdk.Auth{Username: *user, Password: *password, BearerToken: *token}

	if *produce > 0 {
		p, err := membersdk.NewProducer(membersdk.ProducerConfig{
			CoordinatorURLs: urls, StreamPrefix: *stream, ConsumerGroup: *group, Redis: rc, Auth: auth, Logger: log,
		})
		if err != nil {
			log.Error("producer", "error", err)
			os.Exit(2)
		}
		for i := range *produce {
			key := fmt.Sprintf("key-%d", i)
			if _, err := p.Publish(ctx, key, map[string]any{"key": key, "n": i, "at": time.Now().Format(time.RFC3339Nano)}); err != nil {
				log.Error("publish", "key", key, "error", err)
				os.Exit(1)
			}
		}
		log.Info("published", "entries", *produce)
	}

	var wg sync.WaitGroup
	errs := make(chan error, *members)
	for i := range *members {
		c, err := membersdk.NewConsumer(membersdk.ConsumerConfig{
			CoordinatorURLs: urls,
			StreamPrefix:    *stream,
			ConsumerGroup:   *group,
			MemberIndex:     i,
			MemberName:      "membersdk-example",
			Concurrency:     *concurrency,
			Redis:           rc,
			Auth:            auth,
			Logger:          log,
			OnEvent: func(e membersdk.Event) {
				// The SDK logs assignments, fences and failovers itself; this
				// hook is where metrics or a recorder would go.
				if e.Type != membersdk.EventAcked {
					log.Debug("event", "type", e.Type, "member", e.MemberID, "epoch", e.Epoch, "shard", e.Shard, "shards", e.Shards, "error", e.Err)
				}
			},
		}, func(ctx context.Context, m membersdk.Message) error {
			log.Info("handled", "shard", m.Shard, "id", m.ID, "epoch", m.Epoch, "delivery", m.DeliveryCount, "values", m.Values)
			return nil
		})
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
	for err := range errs {
		log.Error("member stopped", "error", err)
		code = 1
	}
	os.Exit(code)
}
