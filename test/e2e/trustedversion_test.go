package e2e

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// A hostile row of issue 10 (trusted versions); limits_test.go has the
// bounded-state rows and the helpers.

// Row 4: a member reports metadataVersion 1e15. The group's and the stream's
// metadataVersion stay what the coordinator issued — in Redis, in monitoring
// and in producer routing — the member is told the real version
// (SYNC_METADATA) and the group keeps working.
func TestInflatedMetadataVersionIsNotAdopted(t *testing.T) {
	e := start(t, nil)
	created := e.c.CreateStream(t, "orders", 4)
	a := e.member("a")
	beatAll(t, 2, a)
	require.Len(t, a.Shards(), 4)

	req := a.Request()
	req.MetadataVersion = 1_000_000_000_000_000
	r := a.Send(t, req)
	require.Equal(t, protocol.StatusSyncMetadata, r.Status, r.Message)
	require.Equal(t, created.MetadataVersion, r.MetadataVersion, "the member is told the real version")
	a.Apply(r)

	var g protocol.GroupResponse
	e.c.MustDo(t, "GET", "/coord/v1/monitoring/streams/orders/groups/workers", nil, &g, 200)
	require.Equal(t, created.MetadataVersion, g.MetadataVersion)
	var routing protocol.ProducerRouting
	e.c.MustDo(t, "GET", "/coord/v1/streams/orders/groups/workers/producer-routing", nil, &routing, 200)
	require.Equal(t, created.MetadataVersion, routing.MetadataVersion)

	ctx := context.Background()
	rc := e.redis.Client()
	metaJSON, err := rc.HGet(ctx, "rsc:{g:orders|workers}:meta", "meta").Result()
	require.NoError(t, err)
	var meta struct {
		MetadataVersion int64 `json:"metadataVersion"`
	}
	require.NoError(t, json.Unmarshal([]byte(metaJSON), &meta))
	require.Equal(t, created.MetadataVersion, meta.MetadataVersion, "stored group meta")
	sv, err := rc.HGet(ctx, "rsc:{s:orders}:stream", "metadataVersion").Result()
	require.NoError(t, err)
	require.Equal(t, strconv.FormatInt(created.MetadataVersion, 10), sv, "stored stream record")

	// The group keeps working: a goes on, b joins and gets half.
	b := e.member("b")
	for i := 0; i < 10 && (len(a.Shards()) != 2 || len(b.Shards()) != 2); i++ {
		beatAll(t, 1, a, b)
		singleOwner(t, e, a, b)
	}
	require.Equal(t, protocol.StatusOK, a.Last.Status, a.Last.Message)
	require.Equal(t, protocol.StatusOK, b.Last.Status, b.Last.Message)
	require.Len(t, a.Shards(), 2)
	require.Len(t, b.Shards(), 2)
}
