package mailbox_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/test/harness"
)

// tryBeat sends one mailbox heartbeat with a short timeout; false when no
// reply came (a member would retry) or the answer was a transient 503.
func (m mbMember) tryBeat(t *testing.T) (protocol.HeartbeatResponse, bool) {
	t.Helper()
	req := m.Request()
	body, _ := json.Marshal(req)
	r := m.mb.send(t, m.ID, req.RequestID, entry(m.Prefix, m.Group, m.ID, body, 2*time.Second), 2*time.Second)
	if r == nil || r.Status == http.StatusServiceUnavailable {
		return protocol.HeartbeatResponse{}, false
	}
	if r.Status != http.StatusOK {
		t.Fatalf("%s: reply %d %s", m.ID, r.Status, r.Body)
	}
	var resp protocol.HeartbeatResponse
	if err := json.Unmarshal(r.Body, &resp); err != nil {
		t.Fatal(err)
	}
	m.Apply(resp)
	return resp, true
}

// Two coordinator nodes read the same request streams: whichever reads an
// entry answers it through the node hosting the group. When a node is
// killed, mailbox members lose at most the replies it owed, retry, and are
// never fenced.
func TestMailboxClusterNodeDies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a coordinator cluster")
	}
	srv := redistest.Start(t)
	c := harness.StartCluster(t, harness.ClusterOptions{Nodes: 2, RedisAddr: srv.Addr(), Env: map[string]string{
		"RSC_MAILBOX_ENABLED": "true", "RSC_MAILBOX_BLOCK": "100ms",
	}})
	harness.NewClient(c.Nodes[0].URL()).CreateStream(t, "orders", 4)
	mb := mbClient{rdb: srv.Client(), prefix: "rsc", principal: protocol.MailboxNoAuthPrincipal}
	a := mbMember{harness.NewMember(nil, "orders", "g", "a"), mb}
	b := mbMember{harness.NewMember(nil, "orders", "g", "b"), mb}
	check := func(m mbMember, resp protocol.HeartbeatResponse) {
		if resp.Status == protocol.StatusFencedMemberEpoch || resp.Status == protocol.StatusUnknownMemberID {
			t.Fatalf("%s was told %s: %s", m.ID, resp.Status, resp.Message)
		}
	}
	converge := func(what string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for len(a.Shards()) != 2 || len(b.Shards()) != 2 || len(a.Draining) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: no even split within 60s: a %v, b %v", what, a.Shards(), b.Shards())
			}
			for _, m := range []mbMember{a, b} {
				if resp, ok := m.tryBeat(t); ok {
					check(m, resp)
				}
				m.Release()
			}
		}
	}
	converge("start")
	// Both nodes read (each entry goes to one of them).
	for i := 0; metricValue(c.Nodes[0].URL()) < 1 || metricValue(c.Nodes[1].URL()) < 1; i++ {
		if i == 50 {
			t.Fatalf("after 50 more heartbeats one node answered none: %v and %v", metricValue(c.Nodes[0].URL()), metricValue(c.Nodes[1].URL()))
		}
		if resp, ok := a.tryBeat(t); ok {
			check(a, resp)
		}
	}
	c.Nodes[1].Kill()
	lost := 0
	for i := 0; i < 10; i++ {
		for _, m := range []mbMember{a, b} {
			resp, ok := m.tryBeat(t)
			if !ok {
				lost++
				continue
			}
			check(m, resp)
			m.Release()
		}
	}
	converge("after a node died")
	t.Logf("mailbox heartbeats without a reply after the kill: %d of 20", lost)
}

// metricValue is rsc_mailbox_requests_total{result="ok"} on node url (-1 if unreadable).
func metricValue(url string) float64 {
	_, raw, err := harness.NewClient(url).Do("GET", "/metrics", nil, nil)
	if err != nil {
		return -1
	}
	m := regexp.MustCompile(`rsc_mailbox_requests_total\{result="ok"\} ([0-9.e+]+)`).FindSubmatch(raw)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}
