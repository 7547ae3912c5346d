package harness

import (
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redisstream/coordinator/membersdk"
	"github.com/redisstream/coordinator/test/seqprod"
)

// ProducerOptions configures StartProducer.
type ProducerOptions struct {
	CoordinatorURLs []string
	RedisAddr       string
	// RedisMasterName and RedisSentinels, when set, make the producer find
	// the Redis primary through Sentinel (RedisAddr unused).
	RedisMasterName string
	RedisSentinels  []string
	// WaitReplicas is membersdk.ProducerConfig.WaitReplicas: a publish is
	// confirmed once that many replicas have the entry.
	WaitReplicas int
	// ProducerID makes the producer idempotent, the sequence number its
	// idempotent id (seqprod.StartIdempotent): each number once in the stream.
	ProducerID    string
	Stream, Group string
	Rate          int                    // entries per second
	Key           func(seq int64) string // partition key of entry seq (default "key-<seq mod 101>")
	// RoutingTTL is the producer's routing cache lifetime (default the
	// SDK's); keep it below the coordinator's resharding.routing-grace.
	RoutingTTL time.Duration
}

// StartProducer starts a sequence producer (test/seqprod) through the
// member SDK's producer; it is stopped at test cleanup.
func StartProducer(t testing.TB, o ProducerOptions) *seqprod.Producer {
	t.Helper()
	if o.Key == nil {
		o.Key = func(seq int64) string { return "key-" + strconv.FormatInt(seq%101, 10) }
	}
	var rdb redis.UniversalClient
	if len(o.RedisSentinels) > 0 {
		rdb = redis.NewFailoverClient(&redis.FailoverOptions{MasterName: o.RedisMasterName, SentinelAddrs: o.RedisSentinels,
			MaxRetries: 1, DialTimeout: 200 * time.Millisecond, ReadTimeout: time.Second, WriteTimeout: time.Second})
	} else {
		rdb = redis.NewClient(&redis.Options{Addr: o.RedisAddr, MaxRetries: 1, DialTimeout: 200 * time.Millisecond,
			ReadTimeout: time.Second, WriteTimeout: time.Second})
	}
	p, err := membersdk.NewProducer(membersdk.ProducerConfig{CoordinatorURLs: o.CoordinatorURLs,
		StreamPrefix: o.Stream, ConsumerGroup: o.Group, Redis: rdb, RoutingTTL: o.RoutingTTL, WaitReplicas: o.WaitReplicas,
		ProducerID: o.ProducerID})
	if err != nil {
		t.Fatal(err)
	}
	start := seqprod.Start
	if o.ProducerID != "" {
		start = seqprod.StartIdempotent
	}
	sp := start(p, o.Rate, o.Key, nil)
	t.Cleanup(func() {
		sp.Stop()
		_ = rdb.Close()
	})
	return sp
}
