package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMailboxRequests(t *testing.T) {
	m := New()
	mb := NewMailbox(m)
	assert.Equal(t, 0.0, values(t, m)["rsc_mailbox_requests_total{result=expired}"], "series exist from the start")
	assert.Equal(t, 0.0, values(t, m)["rsc_mailbox_nudges_total{result=dropped}"], "series exist from the start")
	mb.MailboxRequest("ok", "OK", time.Millisecond)
	mb.MailboxRequest("rejected", "REJECTED", time.Millisecond)
	mb.MailboxRequest("expired", "", time.Hour)
	mb.MailboxNudge("sent")
	v := values(t, m)
	assert.Equal(t, 1.0, v["rsc_mailbox_requests_total{result=ok}"])
	assert.Equal(t, 1.0, v["rsc_mailbox_requests_total{result=expired}"])
	assert.Equal(t, 2.0, v["rsc_mailbox_request_duration_seconds{}"], "expired requests are counted, not timed")
	assert.Equal(t, 1.0, v["rsc_mailbox_nudges_total{result=sent}"])
	// Answered requests count as heartbeats of the redis transport, beside HTTP's.
	assert.Equal(t, 1.0, v["rsc_heartbeats_total{status=OK,transport=redis}"])
	assert.Equal(t, 1.0, v["rsc_heartbeats_total{status=REJECTED,transport=redis}"])
	assert.Equal(t, 2.0, v["rsc_heartbeat_duration_seconds{transport=redis}"])
	assert.Equal(t, 0.0, v["rsc_heartbeat_duration_seconds{transport=http}"], "both transports' series exist from the start")
	NewMailbox(nil).MailboxRequest("ok", "OK", 0) // no metrics: a no-op
	NewMailbox(nil).MailboxNudge("sent")
}
