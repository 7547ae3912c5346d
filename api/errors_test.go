package api

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

func TestServiceErrorMapping(t *testing.T) {
	cases := []struct {
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{coordinator.ErrInvalidArgument, 400, protocol.CodeInvalidArgument, ""},
		{coordinator.ErrStreamNotFound, 404, protocol.CodeStreamNotFound, ""},
		{coordinator.ErrGroupNotFound, 404, protocol.CodeGroupNotFound, ""},
		{coordinator.ErrMigrationNotFound, 404, protocol.CodeMigrationNotFound, ""},
		{coordinator.ErrStreamExists, 409, protocol.CodeStreamExists, ""},
		{coordinator.ErrGroupExists, 409, protocol.CodeGroupExists, ""},
		{coordinator.ErrLimitExceeded, 429, protocol.CodeLimitExceeded, ""},
		{coordinator.ErrMigrationActive, 409, protocol.CodeMigrationActive, ""},
		{coordinator.ErrGroupHasMembers, 409, protocol.CodeGroupHasMembers, ""},
		{coordinator.ErrStateConflict, 409, protocol.CodeStateConflict, ""},
		{coordinator.ErrRollbackNotAllowed, 422, protocol.CodeRollbackNotAllowed, ""},
		{coordinator.ErrMemberOwnedByAnotherPrincipal, 403, protocol.CodeMemberOwnedByAnotherPrincipal, ""},
		{coordinator.ErrUnavailable, 503, protocol.CodeStoreUnavailable, "1"},
		{coordinator.ErrGroupMoving, 503, protocol.CodeGroupMoving, "1"},
		{context.DeadlineExceeded, 503, protocol.CodeTimeout, "1"},
		{errors.New("boom"), 500, protocol.CodeInternal, ""},
	}
	// Every route that calls a fallible Service method.
	routes := []struct{ method, path, body string }{
		{"POST", hbPath, hbBody},
		{"POST", "/coord/v1/streams/orders", `{"requestedBy":"ops"}`},
		{"GET", "/coord/v1/streams/orders/groups/g", ""},
		{"POST", "/coord/v1/streams/orders/groups/g", `{"requestedBy":"ops"}`},
		{"DELETE", "/coord/v1/streams/orders/groups/g", `{"requestedBy":"ops"}`},
		{"GET", "/coord/v1/streams/orders/groups/g/producer-routing", ""},
		{"POST", "/coord/v1/streams/orders/scale", `{"targetShardCount":2,"requestedBy":"ops"}`},
		{"GET", "/coord/v1/streams/orders/groups/g/migrations/rs1", ""},
		{"POST", "/coord/v1/streams/orders/groups/g/migrations/rs1/rollback", `{"requestedBy":"ops"}`},
		{"GET", "/coord/v1/monitoring/groups", ""},
		{"GET", "/coord/v1/monitoring/streams/orders/groups/g", ""},
		{"GET", "/coord/v1/monitoring/streams/orders/groups/g/members", ""},
		{"GET", "/coord/v1/monitoring/streams/orders/groups/g/assignments", ""},
		{"GET", "/coord/v1/monitoring/streams/orders/groups/g/consumption", ""},
		{"GET", "/coord/v1/monitoring/streams/orders/groups/g/migrations", ""},
		{"GET", "/debug/actors", ""},
		{"GET", "/debug/streams/orders/groups/g", ""},
	}
	for _, tc := range cases {
		for _, rt := range routes {
			h := newHarness(t, Config{})
			// Wrapped with internal detail that must not leak on 5xx.
			h.fake.setErr(fmt.Errorf("redis 10.1.2.3:6379 said NOAUTH secret-detail: %w", tc.err))
			r := h.do(rt.method, rt.path, rt.body)
			require.Equal(t, tc.status, r.status, "%v on %s %s: %s", tc.err, rt.method, rt.path, r.body)
			e := r.errorBody(t)
			require.Equal(t, tc.code, e.ErrorCode)
			require.Equal(t, tc.retryAfter, r.header.Get("Retry-After"))
			if tc.status >= 500 {
				require.NotContains(t, string(r.body), "secret-detail")
				require.Contains(t, h.logs.String(), "secret-detail", "5xx detail is logged")
			} else {
				require.Contains(t, e.Message, tc.err.Error())
			}
		}
	}
}

func TestPanicBecomes500(t *testing.T) {
	h := newHarness(t, Config{})
	h.fake.hb = func(string, string, string, protocol.HeartbeatRequest) protocol.HeartbeatResponse {
		panic("nil map in actor")
	}
	r := h.do("POST", hbPath, hbBody)
	require.Equal(t, 500, r.status)
	e := r.errorBody(t)
	require.Equal(t, protocol.CodeInternal, e.ErrorCode)
	require.NotContains(t, string(r.body), "nil map")
	require.True(t, strings.Contains(h.logs.String(), "nil map in actor"))
	// The server keeps serving.
	h.fake.hb = nil
	require.Equal(t, 200, h.do("POST", hbPath, hbBody).status)
}
