package clusterprov

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/config"
)

// A node (re)starting is listed by a peer as soon as it polls that peer, not
// at the peer's next refresh: with an hour between refreshes, node a lists b
// right after b's first poll of a.
func TestAutomanagedPolledByAnUnknownNodePollsAtOnce(t *testing.T) {
	var bUp atomic.Bool
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !bUp.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_ = json.NewEncoder(w).Encode(automanaged.NewNode("rsc-test", "b", "127.0.0.1", 2, 0, nil))
	}))
	defer b.Close()

	var a *automanagedProvider
	aSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { a.health(w, r) }))
	defer aSrv.Close()
	hostOf := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }
	a, err := newAutomanaged(Options{Provider: config.ProviderAutomanaged, Name: "rsc-test", Host: "127.0.0.1", ManagePort: 1,
		Seeds: []string{hostOf(aSrv), hostOf(b)}, RefreshInterval: time.Hour, Logger: quiet})
	require.NoError(t, err)
	a.node.Store(automanaged.NewNode("rsc-test", "a", "127.0.0.1", 1, 0, nil))

	var mu sync.Mutex
	var lists [][]string
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.pollLoop("rsc-test", func(ms cluster.Members) {
			var ids []string
			for _, m := range ms {
				ids = append(ids, m.Id)
			}
			mu.Lock()
			lists = append(lists, ids)
			mu.Unlock()
		})
	}()
	defer func() { _ = a.Shutdown(true); <-done }()
	last := func() []string {
		mu.Lock()
		defer mu.Unlock()
		if len(lists) == 0 {
			return nil
		}
		return lists[len(lists)-1]
	}
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual([]string{"a"}, last()) }, 5*time.Second, 10*time.Millisecond,
		"a lists itself after its first poll")

	// b starts and polls a, naming itself.
	bUp.Store(true)
	req, err := http.NewRequest(http.MethodGet, aSrv.URL+"/_health", nil)
	require.NoError(t, err)
	req.Header.Set(askerHeader, "b")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var self automanaged.NodeModel
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&self))
	resp.Body.Close()
	assert.Equal(t, "a", self.ID, "the health answer is the node model")
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual([]string{"a", "b"}, last()) }, 5*time.Second, 10*time.Millisecond,
		"a lists b without waiting for its refresh interval: %v", last())
}

// Only a poll from a node the last poll did not find asks for an early poll:
// known nodes, and pollers that do not name themselves (protoactor's own
// automanaged provider), change nothing; wakes do not pile up.
func TestAutomanagedHealthWakesOnlyForUnknownNodes(t *testing.T) {
	p, err := newAutomanaged(Options{Provider: config.ProviderAutomanaged, Name: "rsc-test", Host: "127.0.0.1", ManagePort: 1,
		Seeds: []string{"127.0.0.1:1"}, RefreshInterval: time.Hour, Logger: quiet})
	require.NoError(t, err)
	p.node.Store(automanaged.NewNode("rsc-test", "a", "127.0.0.1", 1, 0, nil))
	p.known.Store(&map[string]struct{}{"a": {}, "b": {}})
	ask := func(asker string) int {
		req := httptest.NewRequest(http.MethodGet, "/_health", nil)
		if asker != "" {
			req.Header.Set(askerHeader, asker)
		}
		rec := httptest.NewRecorder()
		p.health(rec, req)
		require.Equal(t, http.StatusOK, rec.Code)
		return len(p.wake)
	}
	assert.Equal(t, 0, ask("b"), "a known node")
	assert.Equal(t, 0, ask(""), "a poller that does not name itself")
	assert.Equal(t, 1, ask("c"), "an unknown node")
	assert.Equal(t, 1, ask("d"), "one early poll is due, however many ask")
}
