package k8s

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

var httpClient = &http.Client{Timeout: 2 * time.Second}

// call sends body as JSON (none when nil) and decodes a 2xx answer into out.
func call(method, url string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: decode: %w: %s", method, url, err, raw)
		}
	}
	return resp.StatusCode, nil
}

// health is the node's /coord/v1/monitoring/health.
func health(p *pod) (protocol.HealthResponse, error) {
	var h protocol.HealthResponse
	_, err := call("GET", p.URL()+"/coord/v1/monitoring/health", nil, &h)
	return h, err
}

// memberAddresses are the cluster member addresses the node lists, sorted.
func memberAddresses(h protocol.HealthResponse) []string {
	if h.Cluster == nil {
		return nil
	}
	var out []string
	for _, m := range h.Cluster.Members {
		out = append(out, m.Address)
	}
	sort.Strings(out)
	return out
}

// clusterView is the part of /debug/actors used here: which node hosts
// which group activation, as this node collects it from every node.
type clusterView struct {
	Cluster []struct {
		NodeID      string `json:"nodeId"`
		Address     string `json:"address"`
		Activations []struct {
			Group           string `json:"group"`
			ActivationEpoch int64  `json:"activationEpoch"`
		} `json:"activations"`
	} `json:"cluster"`
}

// hosts maps each group ("prefix/group") to the node id hosting it, as the
// node at p sees the cluster.
func hosts(p *pod) (map[string]string, error) {
	var v clusterView
	if _, err := call("GET", p.URL()+"/debug/actors", nil, &v); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, n := range v.Cluster {
		for _, a := range n.Activations {
			out[a.Group] = n.NodeID
		}
	}
	return out, nil
}

// member is a simulated member of one group: it heartbeats every 200 ms
// to one node, moving to the next on a transport error, a non-200 answer or
// RETRY, and takes the shards it is assigned.
type member struct {
	prefix, group, id string

	mu     sync.Mutex
	urls   []string
	cur    int
	epoch  int64
	meta   int64
	owned  []int
	lastOK time.Time // when the last OK answer arrived
	okFrom string    // and from which node
	last   string    // the last answer or error, for failure messages
}

func (m *member) beatOnce(seq int) {
	m.mu.Lock()
	url := m.urls[m.cur] + "/coord/v1/streams/" + m.prefix + "/groups/" + m.group + "/members/" + m.id + "/heartbeat"
	req := protocol.HeartbeatRequest{
		ProtocolVersion: 1, RequestID: fmt.Sprintf("%s-%d", m.id, seq), MemberID: m.id, MemberName: "k8s-test",
		MemberEpoch: m.epoch, MetadataVersion: m.meta,
		RuntimeConsumerCapacity: protocol.Capacity{RuntimeMaxConcurrency: 4, AvailableConcurrency: 4},
		OwnedShards:             protocol.ShardIDs(m.owned), RevokingShards: []protocol.RevokingShard{},
	}
	m.mu.Unlock()
	var resp protocol.HeartbeatResponse
	_, err := call("POST", url, req, &resp)
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case err != nil:
		m.last = err.Error()
	case resp.Status == protocol.StatusOK:
		m.epoch, m.meta, m.owned = resp.MemberEpoch, resp.MetadataVersion, protocol.Indexes(resp.Assignment.AssignedShards)
		m.lastOK, m.okFrom, m.last = time.Now(), m.urls[m.cur], "OK"
		return
	case resp.Status == protocol.StatusFencedMemberEpoch || resp.Status == protocol.StatusUnknownMemberID:
		m.epoch, m.owned = 0, nil
		m.last = string(resp.Status) + ": " + resp.Message
		return
	default:
		m.last = string(resp.Status) + ": " + resp.Message
		if resp.Status != protocol.StatusRetry {
			return
		}
	}
	m.cur = (m.cur + 1) % len(m.urls)
}

// run heartbeats until stop is closed.
func (m *member) run(stop <-chan struct{}, done *sync.WaitGroup) {
	defer done.Done()
	for seq := 1; ; seq++ {
		m.beatOnce(seq)
		select {
		case <-stop:
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// okSince reports whether an OK answer arrived after t, from which node, and
// the last answer.
func (m *member) okSince(t time.Time) (bool, string, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastOK.After(t), m.okFrom, m.last
}
