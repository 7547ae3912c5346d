package api

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func TestServiceErrorMapping(t *testing.T) {
	cases := []struct {
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{ErrInvalidArgument, 400, protocol.CodeInvalidArgument, ""},
		{ErrStreamNotFound, 404, protocol.CodeStreamNotFound, ""},
		{ErrGroupNotFound, 404, protocol.CodeGroupNotFound, ""},
		{ErrMigrationNotFound, 404, protocol.CodeMigrationNotFound, ""},
		{ErrStreamExists, 409, protocol.CodeStreamExists, ""},
		{ErrGroupExists, 409, protocol.CodeGroupExists, ""},
		{ErrLimitExceeded, 429, protocol.CodeLimitExceeded, ""},
		{ErrMigrationActive, 409, protocol.CodeMigrationActive, ""},
		{ErrGroupHasMembers, 409, protocol.CodeGroupHasMembers, ""},
		{ErrStateConflict, 409, protocol.CodeStateConflict, ""},
		{ErrRollbackNotAllowed, 422, protocol.CodeRollbackNotAllowed, ""},
		{ErrNotImplemented, 501, protocol.CodeNotImplemented, ""},
		{ErrMemberOwnedByAnotherPrincipal, 403, protocol.CodeMemberOwnedByAnotherPrincipal, ""},
		{ErrUnavailable, 503, protocol.CodeStoreUnavailable, "1"},
		{ErrGroupMoving, 503, protocol.CodeGroupMoving, "1"},
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
			h.fake.err = fmt.Errorf("redis 10.1.2.3:6379 said NOAUTH secret-detail: %w", tc.err)
			r := h.do(rt.method, rt.path, rt.body)
			require.Equal(t, tc.status, r.status, "%v on %s %s: %s", tc.err, rt.method, rt.path, r.body)
			e := r.errorBody(t)
			require.Equal(t, tc.code, e.ErrorCode)
			require.Equal(t, tc.retryAfter, r.header.Get("Retry-After"))
			if tc.status >= 500 && tc.status != 501 {
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
