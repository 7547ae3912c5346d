package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/test/recorder"
)

func main() {
	coord := flag.String("coordinator", "http://127.0.0.1:8080", "coordinator URLs, comma separated")
	redisAddr := flag.String("redis", "127.0.0.1:6379", "Redis address (not with --redis-sentinel)")
	masterName := flag.String("redis-master-name", "", "with --redis-sentinel: the name the Sentinels monitor the primary under")
	sentinels := flag.String("redis-sentinel", "", "Sentinel addresses, comma separated: the member finds the primary through them and follows its failovers")
	stream := flag.String("stream", "orders", "stream prefix")
	group := flag.String("group", "workers", "consumer group")
	id := flag.String("id", "", "member id (default membersdk.DefaultMemberID: <POD_IP>-m0, else <hostname>-<pid>.<random>-m0); two processes may be forced onto one id, the second is refused MEMBER_ID_IN_USE")
	concurrency := flag.Int("concurrency", 4, "handler concurrency")
	work := flag.Duration("work", 2*time.Millisecond, "simulated work per entry")
	logLevel := flag.String("log", "warn", "log level")
	transport := flag.String("transport", membersdk.TransportHTTP, "how to heartbeat: http (--coordinator) or redis (the Redis mailbox on --redis)")
	principal := flag.String("mailbox-principal", "-", "with --transport redis: the coordinator auth user the member speaks for (\"-\" when member authentication is off)")
	mailboxPrefix := flag.String("mailbox-prefix", "rsc", "with --transport redis: the coordinator's store.key-prefix")
	instanceID := flag.String("instance-id", "", "static membership: a stable instance id; SIGTERM then leaves temporarily (memberEpoch -2) and the next process with the same id gets the shards back")
	exactlyOnce := flag.Bool("exactly-once", false, "per entry, append {seq, from} to {<shard stream>}:out and add seq to field seq%997 of {<shard stream>}:sums, in the entry's transaction (committed with its acknowledgement)")
	flag.Parse()

	var level slog.Level
	_ = level.UnmarshalText([]byte(*logLevel))
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	out := &lineWriter{enc: json.NewEncoder(os.Stdout)}
	tokens := &tokenOf{m: map[string]int64{}}

	ro := membersdk.RedisOptions{Addrs: []string{*redisAddr}, DialTimeout: time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: time.Second}
	if *sentinels != "" {
		ro.Addrs, ro.MasterName, ro.SentinelAddrs = nil, *masterName, strings.Split(*sentinels, ",")
	}
	rdb, err := ro.Client()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer rdb.Close()
	cfg := membersdk.ConsumerConfig{
		CoordinatorURLs: strings.Split(*coord, ","),
		Transport:       *transport,
		StreamPrefix:    *stream,
		ConsumerGroup:   *group,
		MemberID:        *id,
		MemberName:      "memberproc",
		InstanceID:      *instanceID,
		Concurrency:     *concurrency,
		Redis:           rdb,
		Logger:          logger,
		OnEvent: func(ev membersdk.Event) {
			l := recorder.Line{Member: ev.MemberID, Shard: ev.Shard, Epoch: ev.Epoch, EntryID: ev.EntryID, At: ev.Time.UnixNano()}
			switch ev.Type {
			case membersdk.EventAcked:
				l.Kind = "acked"
				l.Token = tokens.get(ev.Shard, ev.EntryID)
			case membersdk.EventAckRefused:
				l.Kind = "refused"
			default:
				l.Kind, l.Event, l.Shards = "event", string(ev.Type), ev.Shards
			}
			out.write(l)
		},
	}
	cfg.Transactions.Enabled = *exactlyOnce
	if *transport == membersdk.TransportRedis {
		cfg.MailboxPrincipal, cfg.MailboxKeyPrefix = *principal, *mailboxPrefix
	}
	var memberID string // set before Run starts any handler
	c, err := membersdk.NewConsumer(cfg, func(ctx context.Context, msg membersdk.Message) error {
		seq, _ := strconv.ParseInt(fmt.Sprint(msg.Values["seq"]), 10, 64)
		tokens.set(msg.Shard, msg.ID, msg.FencingToken)
		out.write(recorder.Line{Kind: "handled", Member: memberID, Shard: msg.Shard, Epoch: msg.Epoch,
			EntryID: msg.ID, Seq: seq, At: time.Now().UnixNano()})
		if msg.Tx != nil {
			// The writes first, then the work: a member killed or frozen
			// during the work has its output queued but not committed, the
			// window where an at-least-once pipeline writes it twice.
			if err := msg.Tx.XAdd(msg.Tx.Key("out"), map[string]any{"seq": seq, "from": msg.ID}); err != nil {
				return err
			}
			if err := msg.Tx.HIncrBy(msg.Tx.Key("sums"), strconv.FormatInt(seq%997, 10), seq); err != nil {
				return err
			}
		}
		if *work > 0 {
			select {
			case <-time.After(*work):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "memberproc:", err)
		os.Exit(2)
	}
	memberID = c.MemberID()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := c.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "memberproc:", err)
		os.Exit(1)
	}
}

// lineWriter serialises JSON lines from concurrent handlers.
type lineWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (w *lineWriter) write(l recorder.Line) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.enc.Encode(l)
}

// tokenOf remembers the fencing token each entry was handled under, so the
// acknowledgement (an event, which does not carry the token) can be recorded
// with it. A shard worker holds one token for its whole life and acks only
// entries it read, so the handling token is the token the ack was checked
// against. Entries are kept for the life of the process (a test run's worth).
type tokenOf struct {
	mu sync.Mutex
	m  map[string]int64 // "shard/entryID" → token
}

func (t *tokenOf) set(shard int, id string, token int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m[strconv.Itoa(shard)+"/"+id] = token
}

func (t *tokenOf) get(shard int, id string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[strconv.Itoa(shard)+"/"+id]
}
