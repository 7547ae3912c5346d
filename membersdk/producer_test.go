package membersdk

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/stretchr/testify/require"
)

// fakeRouting serves producer routing; shardCount can change between calls.
type fakeRouting struct {
	stream     string // default testStream
	mu         sync.Mutex
	shardCount int
	version    int64
	fetches    int
	auth       string
}

func (f *fakeRouting) set(shardCount int, version int64) {
	f.mu.Lock()
	f.shardCount, f.version = shardCount, version
	f.mu.Unlock()
}

func (f *fakeRouting) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fetches
}

func (f *fakeRouting) server(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		stream := f.stream
		if stream == "" {
			stream = testStream
		}
		if r.Method != http.MethodGet || r.URL.Path != "/coord/v1/streams/"+stream+"/groups/workers/producer-routing" {
			http.NotFound(w, r)
			return
		}
		f.fetches++
		f.auth = r.Header.Get("Authorization")
		_ = json.NewEncoder(w).Encode(protocol.Routing(stream, testGroup, f.shardCount, f.version))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// SPEC §6 vectors: key → route for shardCount 1, 3, 4, 7, 8, 16, 1000.
var routeVectors = map[string][7]int{
	"order-123":      {0, 1, 1, 6, 5, 13, 941},
	"":               {0, 0, 0, 0, 0, 0, 0},
	"a":              {0, 2, 2, 4, 2, 2, 850},
	"hello world":    {0, 2, 3, 0, 7, 15, 183},
	"사용자-42":         {0, 1, 0, 2, 0, 0, 272},
	"customer:00017": {0, 2, 0, 0, 4, 4, 812},
}

func TestProducerRoutingMatchesReferenceVectors(t *testing.T) {
	t.Parallel()
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never used: no publish
	defer rc.Close()
	var fr fakeRouting
	srv := fr.server(t)
	counts := []int{1, 3, 4, 7, 8, 16, 1000}
	for i, n := range counts {
		fr.set(n, int64(i+1))
		p, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{srv.URL}, StreamPrefix: testStream, ConsumerGroup: testGroup, Redis: rc})
		require.NoError(t, err)
		for key, want := range routeVectors {
			shard, streamKey, err := p.ShardFor(context.Background(), key)
			require.NoError(t, err)
			require.Equal(t, want[i], shard, "key %q shardCount %d", key, n)
			require.Equal(t, fmt.Sprintf("orders:%d", want[i]), streamKey)
		}
		for k := range 500 {
			key := fmt.Sprintf("key-%d", k)
			shard, _, err := p.ShardFor(context.Background(), key)
			require.NoError(t, err)
			require.Equal(t, int(protocol.Route(key, uint32(n))), shard)
		}
	}
}

func TestProducerRefreshesAfterMissingStream(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	rc := rs.Client()
	ctx := context.Background()
	// Only orders:0 exists; routing still says 4 shards (a stale scale-in).
	require.NoError(t, rc.XGroupCreateMkStream(ctx, "orders:0", testGroup, "0").Err())
	var fr fakeRouting
	fr.set(4, 5)
	srv := fr.server(t)
	p, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{srv.URL}, StreamPrefix: testStream, ConsumerGroup: testGroup, Redis: rc,
		Auth: Auth{BearerToken: "tok"}})
	require.NoError(t, err)
	require.Equal(t, 1, routeVectors["order-123"][2]) // shard 1 of 4: missing

	_, err = p.Routing(ctx) // cache the 4-shard routing
	require.NoError(t, err)
	fr.set(1, 6) // the coordinator now routes to one shard; the cache is stale
	pub, err := p.PublishResult(ctx, "order-123", map[string]any{"v": "1"})
	require.NoError(t, err)
	id := pub.ID
	require.True(t, pub.Refreshed)
	require.EqualValues(t, 6, pub.MetadataVersion, "the routing version the entry was routed with")
	require.Equal(t, 0, pub.Shard)
	require.Equal(t, "orders:0", pub.StreamKey)
	require.Equal(t, 2, fr.count(), "routing fetched again after XADD NOMKSTREAM failed")
	require.Equal(t, "Bearer tok", fr.auth)
	msgs, err := rc.XRange(ctx, "orders:0", "-", "+").Result()
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, id, msgs[0].ID)
	exists, err := rc.Exists(ctx, "orders:1").Result()
	require.NoError(t, err)
	require.Zero(t, exists, "NOMKSTREAM: a missing shard is never created")

	// Still missing after a refresh: a clear error, one retry only.
	fr.set(4, 7)
	p.Invalidate()
	_, err = p.Publish(ctx, "order-123", map[string]any{"v": "2"})
	require.ErrorIs(t, err, ErrStreamMissing)
	require.Equal(t, 4, fr.count())

	fr.set(0, 8)
	p.Invalidate()
	_, err = p.Publish(ctx, "order-123", map[string]any{"v": "3"})
	require.ErrorIs(t, err, ErrNoShards)
}

func TestProducerRoutingCacheTTLAndVersion(t *testing.T) {
	t.Parallel()
	rc := redistest.Start(t).Client()
	ctx := context.Background()
	for i := range 2 {
		require.NoError(t, rc.XGroupCreateMkStream(ctx, protocol.StreamKey(testStream, i), testGroup, "0").Err())
	}
	var fr fakeRouting
	fr.set(2, 1)
	srv := fr.server(t)
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	p, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{"http://127.0.0.1:1", srv.URL}, StreamPrefix: testStream, ConsumerGroup: testGroup,
		Redis: rc, RoutingTTL: 10 * time.Second, MaxLen: 10})
	require.NoError(t, err)
	p.cache.Now = clock
	for i := range 300 {
		_, err := p.Publish(ctx, fmt.Sprintf("k%d", i), map[string]any{"i": i})
		require.NoError(t, err)
	}
	require.Equal(t, 1, fr.count(), "cached (after failing over to the second URL)")
	n0, _ := rc.XLen(ctx, "orders:0").Result()
	n1, _ := rc.XLen(ctx, "orders:1").Result()
	require.Less(t, n0+n1, int64(300), "MAXLEN ~ trims")

	advance(11 * time.Second)
	_, err = p.Publish(ctx, "x", map[string]any{"i": 1})
	require.NoError(t, err)
	require.Equal(t, 2, fr.count(), "refreshed after the TTL")

	p.ObserveMetadataVersion(1)
	_, err = p.Publish(ctx, "x", map[string]any{"i": 1})
	require.NoError(t, err)
	require.Equal(t, 2, fr.count(), "same version: no refresh")
	p.ObserveMetadataVersion(2)
	_, err = p.Publish(ctx, "x", map[string]any{"i": 1})
	require.NoError(t, err)
	require.Equal(t, 3, fr.count(), "newer version seen: refresh")
}

// Concurrent publishes share one routing fetch (the cache is read without a
// lock; refreshes are serialised and re-checked).
func TestProducerConcurrentPublishesFetchRoutingOnce(t *testing.T) {
	t.Parallel()
	rc := redistest.Start(t).Client()
	ctx := context.Background()
	for i := range 4 {
		require.NoError(t, rc.XGroupCreateMkStream(ctx, protocol.StreamKey(testStream, i), testGroup, "0").Err())
	}
	var fr fakeRouting
	fr.set(4, 1)
	srv := fr.server(t)
	p, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{srv.URL}, StreamPrefix: testStream, ConsumerGroup: testGroup, Redis: rc})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				_, err := p.Publish(ctx, fmt.Sprintf("k%d-%d", g, i), map[string]any{"i": i})
				require.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 1, fr.count())
	var total int64
	for i := range 4 {
		n, _ := rc.XLen(ctx, protocol.StreamKey(testStream, i)).Result()
		total += n
	}
	require.Equal(t, int64(200), total)
}

// An Invalidate that arrives while a fetch is in flight is not lost: the
// routing that fetch returns counts as stale and the next call fetches again.
func TestProducerInvalidateDuringFetchIsNotLost(t *testing.T) {
	t.Parallel()
	var fetches sync.WaitGroup
	inFetch := make(chan struct{}, 1)
	release := make(chan struct{})
	var mu sync.Mutex
	count := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		count++
		first := count == 1
		mu.Unlock()
		if first {
			inFetch <- struct{}{}
			<-release
		}
		_ = json.NewEncoder(w).Encode(protocol.Routing(testStream, testGroup, 2, 1))
	}))
	t.Cleanup(srv.Close)
	p, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{srv.URL}, StreamPrefix: testStream, ConsumerGroup: testGroup,
		Redis: redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})})
	require.NoError(t, err)
	fetches.Add(1)
	go func() {
		defer fetches.Done()
		_, err := p.Routing(context.Background())
		require.NoError(t, err)
	}()
	<-inFetch
	p.Invalidate()
	close(release)
	fetches.Wait()
	_, err = p.Routing(context.Background())
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, 2, count, "fetched again after the invalidation")
}

// With WaitReplicas a publish is confirmed only once a replica has the
// entry: without a replica it is reported ErrNotReplicated, with its id (it
// is on the primary); with one it is confirmed and the replica has it.
func TestProducerWaitsForReplicas(t *testing.T) {
	t.Parallel()
	primary := redistest.Start(t)
	ctx := context.Background()
	require.NoError(t, primary.Client().XGroupCreateMkStream(ctx, "orders:0", testGroup, "0").Err())
	var fr fakeRouting
	fr.set(1, 1)
	srv := fr.server(t)
	_, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{srv.URL}, StreamPrefix: testStream, ConsumerGroup: testGroup,
		Redis: primary.Client(), WaitReplicas: -1})
	require.ErrorContains(t, err, "ProducerConfig.WaitReplicas = -1")
	p, err := NewProducer(ProducerConfig{CoordinatorURLs: []string{srv.URL}, StreamPrefix: testStream, ConsumerGroup: testGroup,
		Redis: primary.Client(), WaitReplicas: 1, WaitTimeout: 100 * time.Millisecond})
	require.NoError(t, err)

	pub, err := p.PublishResult(ctx, "k", map[string]any{"v": "alone"})
	require.ErrorIs(t, err, ErrNotReplicated, "no replica: not confirmed")
	require.NotEmpty(t, pub.ID, "the id of the entry written on the primary")
	require.Contains(t, err.Error(), "0 of 1 replicas")

	host, port, _ := strings.Cut(primary.Addr(), ":")
	replica := redistest.Start(t)
	require.NoError(t, replica.Client().SlaveOf(ctx, host, port).Err())
	var id string
	require.Eventually(t, func() bool {
		id, err = p.Publish(ctx, "k", map[string]any{"v": "replicated"})
		return err == nil
	}, 10*time.Second, 50*time.Millisecond, "confirmed once the replica is in sync: %v", err)
	got, err := replica.Client().XRange(ctx, "orders:0", id, id).Result()
	require.NoError(t, err)
	require.Len(t, got, 1, "the replica has the confirmed entry")
}
