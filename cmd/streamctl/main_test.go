package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStreamCreateSendsBodyAndAuth(t *testing.T) {
	var gotPath, gotUser string
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.Method + " " + r.URL.Path
		gotUser, _, _ = r.BasicAuth()
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &got)
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"streamPrefix":"orders","shardCount":8,"metadataVersion":1}`))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	code := run([]string{"--url", srv.URL, "--user", "admin", "--password", "pw", "stream", "create", "orders", "--shards", "8"}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Equal(t, "POST /coord/v1/streams/orders", gotPath)
	require.Equal(t, "admin", gotUser)
	require.Equal(t, float64(8), got["initialShardCount"])
	require.Contains(t, out.String(), `"shardCount": 8`)
}

func TestErrorStatusIsNonZeroExit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		_, _ = w.Write([]byte(`{"status":"NOT_FOUND","errorCode":"GROUP_NOT_FOUND","message":"no such group"}`))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	require.Equal(t, 1, run([]string{"--url", srv.URL, "group", "orders", "nope"}, &out, &errOut))
	require.Contains(t, errOut.String(), "GROUP_NOT_FOUND")
	require.Equal(t, 2, run([]string{"bogus"}, &out, &errOut))
}

func TestNamesAreEscapedAsOneSegment(t *testing.T) {
	var gotRaw string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotRaw = r.URL.EscapedPath()
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"--url", srv.URL, "routing", "my orders:v2", "a/b"}, &out, &errOut), errOut.String())
	require.Equal(t, "/coord/v1/streams/my%20orders:v2/groups/a%2Fb/producer-routing", gotRaw)
}
