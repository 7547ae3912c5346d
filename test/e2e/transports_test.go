package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redisstream/coordinator/test/harness"
)

// The protocol walkthrough (protocol_test.go) runs over both heartbeat
// transports: subtest "http" posts to the heartbeat route, subtest "redis"
// goes through the Redis mailbox with harness.Mailbox, a client written
// from docs/PROTOCOL.md alone (not the SDK). Each subtest has its own
// redis-server and coordinator process, configured alike (mailbox on in
// both), so only the transport differs.
//
// The mailbox promises the HTTP status and the byte-for-byte HTTP body
// (docs/PROTOCOL.md, "Redis mailbox"). A scenario that sends the same
// requests in the same order whatever the timing (deterministic) must
// therefore produce the same transcript over both: every answer's status
// and body, requestIds aside (each run numbers its requests afresh).
func overBoth(t *testing.T, extra map[string]string, deterministic bool, scenario func(t *testing.T, e *env)) {
	t.Helper()
	transcripts := map[string][]string{}
	for _, name := range []string{"http", "redis"} {
		ok := t.Run(name, func(t *testing.T) {
			e := startOver(t, extra, name)
			scenario(t, e)
			transcripts[name] = e.via.lines()
		})
		if !ok {
			return
		}
	}
	if !deterministic {
		return
	}
	h, r := transcripts["http"], transcripts["redis"]
	for i := 0; i < max(len(h), len(r)); i++ {
		var hl, rl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(r) {
			rl = r[i]
		}
		if hl != rl {
			t.Fatalf("answer %d of %d/%d differs between the transports:\nhttp:  %s\nredis: %s", i+1, len(h), len(r), hl, rl)
		}
	}
	t.Logf("%d answers byte-identical over http and redis", len(h))
}

// startOver starts redis-server and a coordinator (mailbox on) with
// fastTiming and extra; its members heartbeat over transport.
func startOver(t *testing.T, extra map[string]string, transport string) *env {
	t.Helper()
	settings := map[string]string{"RSC_MAILBOX_ENABLED": "true", "RSC_MAILBOX_BLOCK": "200ms"}
	for k, v := range extra {
		settings[k] = v
	}
	e := start(t, settings)
	var tr harness.Transport = e.c
	if transport == "redis" {
		tr = &harness.Mailbox{RDB: e.redis.Client()}
	}
	e.via = &recording{Transport: tr}
	return e
}

// recording is a Transport that keeps every answer: "<member> <status>
// <body>", with the request's requestId in the body replaced by
// <requestId>. A RETRY answer (the store was slow to confirm, the group
// was moving: nothing changed) is sent again after a pause, as a member
// would, and only the final answer is kept: the scenarios expect the
// protocol's outcomes, not a loaded machine's hiccups.
type recording struct {
	harness.Transport
	mu  sync.Mutex
	log []string
}

func (r *recording) Heartbeat(prefix, group, member string, body []byte) (int, []byte, error) {
	status, answer, err := r.Transport.Heartbeat(prefix, group, member, body)
	for i := 0; i < 40 && err == nil && status == 200 && bytes.Contains(answer, []byte(`"status":"RETRY"`)); i++ {
		time.Sleep(50 * time.Millisecond)
		status, answer, err = r.Transport.Heartbeat(prefix, group, member, body)
	}
	line := fmt.Sprintf("%s %d %s", member, status, answer)
	if err != nil {
		line = fmt.Sprintf("%s error %v", member, err)
	}
	var req struct {
		RequestID string `json:"requestId"`
	}
	if _ = json.Unmarshal(body, &req); req.RequestID != "" {
		line = strings.ReplaceAll(line, `"`+req.RequestID+`"`, `"<requestId>"`)
	}
	r.mu.Lock()
	r.log = append(r.log, line)
	r.mu.Unlock()
	return status, answer, err
}

func (r *recording) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}
