package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// The per-stream migration routes reach the service with the stream and
// the id, need READ (GETs) or WRITE (rollback), and the rollback is audited
// like the other admin mutations.
func TestStreamMigrationRoutes(t *testing.T) {
	h := newHarness(t, authConfig(t))
	read, write, member := basic("grafana", "grafana-pass"), basic("admin", "admin-pass"), basic("member", "member-pass")
	const base = "/coord/v1/streams/orders/migrations"

	r := h.do("GET", base, "", "Authorization", read)
	require.Equal(t, 200, r.status, string(r.body))
	require.Contains(t, string(r.body), `"migrations":[]`, "an empty list, never null")
	r = h.do("GET", base+"/rs-2", "", "Authorization", read)
	require.Equal(t, 200, r.status, string(r.body))
	var m protocol.Migration
	r.decode(t, &m)
	require.Equal(t, "rs-2", m.ReshardingID)

	require.Equal(t, 403, h.do("GET", base, "", "Authorization", member).status, "MEMBER may not read migrations")
	require.Equal(t, 401, h.do("GET", base+"/rs-2", "").status)
	body := `{"requestedBy":"alice","reason":"too many"}`
	require.Equal(t, 403, h.do("POST", base+"/rs-2/rollback", body, "Authorization", read).status, "READ may not roll back")
	r = h.do("POST", base+"/rs-2/rollback", body, "Authorization", write)
	require.Equal(t, 202, r.status, string(r.body))
	r.decode(t, &m)
	require.Equal(t, protocol.MigrationRollingBack, m.State)
	require.Equal(t, 400, h.do("POST", base+"/rs-2/rollback", `{}`, "Authorization", write).status, "requestedBy is required")

	require.Equal(t, []string{"StreamMigrations orders", "StreamMigration orders/rs-2", "StreamRollback orders/rs-2"}, h.fake.Calls())
	lines := auditLines(h)
	require.Len(t, lines, 3, "the refused, the accepted and the bad rollback; no read: %s", h.logs.String())
	require.Contains(t, lines[0], "status=403 result=denied")
	require.Contains(t, lines[1], "principal=admin")
	require.Contains(t, lines[1], "requestedBy=alice")
	require.Contains(t, lines[1], "route=/coord/v1/streams/:streamPrefix/migrations/:reshardingId/rollback")
	require.Contains(t, lines[1], "status=202 result=ok")
}
