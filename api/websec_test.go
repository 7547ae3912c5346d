package api

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/config"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

const scaleBody = `{"targetShardCount":0,"requestedBy":"ops","reason":"x"}`

// A JSON route takes only application/json bodies: a browser form's
// text/plain (a JSON body smuggled in a field name), urlencoded or
// multipart body is 415 and the Service is not called.
func TestJSONRoutesRefuseOtherContentTypes(t *testing.T) {
	h := newHarness(t, Config{})
	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
		"multipart/form-data; boundary=x", "application/jsonx", "application/json; charset=latin1", "", "json"} {
		r := h.do("POST", "/coord/v1/streams/orders/scale", scaleBody, "Content-Type", ct)
		e := h.assertRejected(r, 415, protocol.CodeUnsupportedMediaType)
		require.Contains(t, e.Message, "Content-Type: application/json", ct)
		r = h.do("POST", hbPath, hbBody, "Content-Type", ct)
		h.assertRejected(r, 415, protocol.CodeUnsupportedMediaType)
	}
	// What the reference's clients, the SDK and streamctl send passes.
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON;Charset=UTF-8", "application/json;charset=utf8"} {
		r := h.do("POST", "/coord/v1/streams/orders/scale", scaleBody, "Content-Type", ct)
		require.Equal(t, 202, r.status, "%s: %s", ct, r.body)
		r = h.do("POST", hbPath, hbBody, "Content-Type", ct)
		require.Equal(t, 200, r.status, "%s: %s", ct, r.body)
	}
}

// Browser requests from another origin are refused on every route that
// changes state (and on producer routing, which may create a group);
// same-origin pages, non-browser clients and configured origins pass.
func TestCrossOriginRequestsRefused(t *testing.T) {
	h := newHarness(t, Config{AllowedOrigins: []string{"https://ops.example.com"}})
	refused := [][]string{
		{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"},
		{"Sec-Fetch-Site", "same-site", "Origin", "https://other.rsc.test"},
		{"Sec-Fetch-Site", "cross-site"},
		{"Origin", "https://evil.example"}, // a browser without Sec-Fetch-Site
		{"Origin", "null"},
	}
	for _, hdr := range refused {
		r := h.do("POST", "/coord/v1/streams/orders/scale", scaleBody, hdr...)
		e := h.assertRejected(r, 403, protocol.CodeCrossOrigin)
		require.Contains(t, e.Message, "http.allowed-origins")
		h.assertRejected(h.do("DELETE", "/coord/v1/streams/orders/groups/g", `{"requestedBy":"ops"}`, hdr...), 403, protocol.CodeCrossOrigin)
		h.assertRejected(h.do("POST", hbPath, hbBody, hdr...), 403, protocol.CodeCrossOrigin)
		h.assertRejected(h.do("GET", "/coord/v1/streams/orders/groups/g/producer-routing", "", hdr...), 403, protocol.CodeCrossOrigin)
	}
	require.Contains(t, h.logs.String(), "refused a cross-origin request")
	require.Equal(t, 1, strings.Count(h.logs.String(), "refused a cross-origin request"), "logged at most every 10s")

	allowed := [][]string{
		nil, // curl, the SDK, the reference's clients
		{"Sec-Fetch-Site", "same-origin", "Origin", "http://rsc.test"},
		{"Sec-Fetch-Site", "none"},
		{"Origin", "http://rsc.test"}, // an older browser on the coordinator's own page
		{"Sec-Fetch-Site", "cross-site", "Origin", "https://OPS.example.com"},
	}
	for _, hdr := range allowed {
		r := h.do("POST", "/coord/v1/streams/orders/scale", scaleBody, hdr...)
		require.Equal(t, 202, r.status, "%v: %s", hdr, r.body)
	}
	// Reads are not refused: a page elsewhere cannot read the answer (no CORS headers).
	r := h.do("GET", "/coord/v1/monitoring/groups", "", "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
	require.Equal(t, 200, r.status)
	require.Empty(t, r.header.Get("Access-Control-Allow-Origin"))
}

func TestAllowedOriginsValidated(t *testing.T) {
	for _, bad := range []string{"ops.example.com", "ftp://x", "https://x/path", "https://", "https://x?q=1", "*"} {
		err := Config{AllowedOrigins: []string{bad}}.Validate()
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "http.allowed-origins[0]")
	}
	require.NoError(t, Config{AllowedOrigins: []string{"https://ops.example.com:8443", "http://127.0.0.1:3000/"}}.Validate())
}

// A user scoped to some streams sees only those in the list routes, and
// is refused the routes that show every stream at once.
func TestListRoutesFollowStreamScope(t *testing.T) {
	cfg := authConfig(t)
	cfg.Auth.Users = append(cfg.Auth.Users,
		config.User{Username: "team", Password: "team-pass", Roles: []string{"READ"}, Streams: []string{"orders"}},
		config.User{Username: "other", Password: "other-pass", Roles: []string{"READ"}, Streams: []string{"billing", "pay:*"}})
	h := newHarness(t, cfg)
	list := func(user, path string) []byte {
		r := h.do("GET", path, "", "Authorization", basic(user, user+"-pass"))
		require.Equal(t, 200, r.status, "%s %s: %s", user, path, r.body)
		return r.body
	}
	var g protocol.GroupsResponse
	require.NoError(t, json.Unmarshal(list("team", "/coord/v1/monitoring/groups"), &g))
	require.Len(t, g.Groups, 1)
	require.Equal(t, "orders", g.Groups[0].StreamPrefix)
	require.JSONEq(t, `{"groups":[]}`, string(list("other", "/coord/v1/monitoring/groups")))
	var s protocol.StreamsResponse
	require.NoError(t, json.Unmarshal(list("team", "/coord/v1/streams"), &s))
	require.Len(t, s.Streams, 1)
	require.JSONEq(t, `{"streams":[]}`, string(list("other", "/coord/v1/streams")))
	for _, p := range []string{"/debug/actors", "/metrics", "/coord/v1/monitoring/cluster"} {
		r := h.do("GET", p, "", "Authorization", basic("team", "team-pass"))
		require.Equal(t, 403, r.status, p)
		e := r.errorBody(t)
		require.Contains(t, e.Message, "scoped to streams [orders]")
		require.Equal(t, 200, h.do("GET", p, "", "Authorization", basic("grafana", "grafana-pass")).status, "unscoped READ: %s", p)
	}
}

// CL+TE: the answer is 400 and the bytes after the refused request never
// run as a request of their own (request smuggling through a proxy that
// frames by Content-Length).
func TestContentLengthWithTransferEncodingRefused(t *testing.T) {
	h := newHarness(t, Config{})
	h.listen()
	addr := strings.TrimPrefix(h.base, "http://")
	smuggled := "POST /coord/v1/streams/evil/scale HTTP/1.1\r\nHost: rsc.test\r\nContent-Type: application/json\r\nContent-Length: " +
		fmt.Sprint(len(scaleBody)) + "\r\n\r\n" + scaleBody
	chunkedEnd := "0\r\n\r\n"
	cases := map[string]string{
		"CL+TE": "POST /coord/v1/streams/orders/scale HTTP/1.1\r\nHost: rsc.test\r\nContent-Type: application/json\r\n" +
			"Content-Length: " + fmt.Sprint(len(chunkedEnd)) + "\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedEnd + smuggled,
		"TE+CL": "POST /coord/v1/streams/orders/scale HTTP/1.1\r\nHost: rsc.test\r\nContent-Type: application/json\r\n" +
			"Transfer-Encoding: chunked\r\ncontent-length: 5\r\n\r\n" + chunkedEnd + smuggled,
		"TE twice": "POST /coord/v1/streams/orders/scale HTTP/1.1\r\nHost: rsc.test\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n" + chunkedEnd + smuggled,
		"TE gzip":  "POST /coord/v1/streams/orders/scale HTTP/1.1\r\nHost: rsc.test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + chunkedEnd + smuggled,
		"CL twice": "POST /coord/v1/streams/orders/scale HTTP/1.1\r\nHost: rsc.test\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n" + smuggled,
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer conn.Close()
			require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
			_, err = io.WriteString(conn, raw)
			require.NoError(t, err)
			rd := bufio.NewReader(conn)
			resp, err := http.ReadResponse(rd, nil)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			require.Equal(t, 400, resp.StatusCode, "%s", body)
			require.Contains(t, string(body), protocol.CodeAmbiguousLength)
			// The server closes the connection: no second answer, ever.
			_, err = http.ReadResponse(rd, nil)
			require.Error(t, err, "a second response means the smuggled request ran")
			require.Empty(t, h.fake.Calls(), "no request reached the Service")
		})
	}
	// A plain chunked request and a plain Content-Length one are served.
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = fmt.Fprintf(conn, "POST /coord/v1/streams/orders/scale HTTP/1.1\r\nHost: rsc.test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(scaleBody), scaleBody)
	require.NoError(t, err)
	rd := bufio.NewReader(conn)
	resp, err := http.ReadResponse(rd, nil)
	require.NoError(t, err)
	_, _ = io.ReadAll(resp.Body)
	require.Equal(t, 202, resp.StatusCode)
	_, err = io.WriteString(conn, smuggled)
	require.NoError(t, err)
	resp, err = http.ReadResponse(rd, nil)
	require.NoError(t, err)
	require.Equal(t, 202, resp.StatusCode, "keep-alive still works for unambiguous requests")
	require.Equal(t, []string{"Scale orders", "Scale evil"}, h.fake.Calls())
}

// /docs: no 'unsafe-inline', no framing; its one script and style are
// allowed by hash, and the hashes are those of the page served.
func TestDocsPolicyIsStrict(t *testing.T) {
	h := newHarness(t, Config{})
	r := h.do("GET", "/docs", "")
	require.Equal(t, 200, r.status)
	csp := r.header.Get("Content-Security-Policy")
	require.NotContains(t, csp, "unsafe-inline")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.Contains(t, csp, "default-src 'none'")
	require.Equal(t, "DENY", r.header.Get("X-Frame-Options"))
	page := string(r.body)
	for _, tag := range []string{"script", "style"} {
		i := strings.Index(page, "<"+tag+">") + len(tag) + 2
		j := strings.Index(page, "</"+tag+">")
		sum := sha256.Sum256([]byte(page[i:j]))
		require.Contains(t, csp, tag+"-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
		require.Equal(t, 1, strings.Count(page, "<"+tag), "one <%s> element: the policy allows exactly one", tag)
	}
}
