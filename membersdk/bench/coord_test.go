package bench

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// staticCoord answers every heartbeat OK with every shard of the stream
// assigned (a leave with epoch -1 and nothing), and producer routing with
// the stream's shards. It keeps the coordinator out of the measurement: the
// benchmark is about the data plane.
type staticCoord struct {
	srv    *httptest.Server
	shards map[string]int // stream prefix → shard count
}

func newStaticCoord(tb testing.TB, shards map[string]int) *staticCoord {
	c := &staticCoord{shards: shards}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	tb.Cleanup(c.srv.Close)
	return c
}

func (c *staticCoord) url() string { return c.srv.URL }

// serve handles /coord/v1/streams/{p}/groups/{g}/(producer-routing|members/{m}/heartbeat).
func (c *staticCoord) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if len(parts) < 6 {
		http.NotFound(w, r)
		return
	}
	prefix, group := parts[3], parts[5]
	n := c.shards[prefix]
	w.Header().Set("Content-Type", "application/json")
	if strings.HasSuffix(r.URL.Path, "/producer-routing") {
		_ = json.NewEncoder(w).Encode(protocol.Routing(prefix, group, n, 1))
		return
	}
	var req protocol.HeartbeatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp := protocol.HeartbeatResponse{
		ResponseTo: req.RequestID, Status: protocol.StatusOK, MemberID: req.MemberID, MemberEpoch: 1,
		HeartbeatIntervalMs: 1000, RebalanceTimeoutMs: 10000, MemberLeaseTTLMs: 30000,
		GroupEpoch: 1, AssignmentEpoch: 1, MetadataVersion: 1,
		Assignment: protocol.Assignment{AssignedShards: []protocol.ShardID{}, PendingShards: []protocol.ShardID{}, MetadataVersion: 1},
	}
	if req.MemberEpoch == protocol.EpochLeave {
		resp.MemberEpoch = protocol.EpochLeave
	} else {
		for i := range n {
			resp.Assignment.AssignedShards = append(resp.Assignment.AssignedShards, protocol.ShardID{ShardIndex: i})
		}
	}
	_ = json.NewEncoder(w).Encode(resp)
}
