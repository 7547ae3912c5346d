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
	mb.MailboxRequest("ok", time.Millisecond)
	mb.MailboxRequest("expired", time.Hour)
	v := values(t, m)
	assert.Equal(t, 1.0, v["rsc_mailbox_requests_total{result=ok}"])
	assert.Equal(t, 1.0, v["rsc_mailbox_requests_total{result=expired}"])
	assert.Equal(t, 1.0, v["rsc_mailbox_request_duration_seconds{}"], "expired requests are counted, not timed")
	NewMailbox(nil).MailboxRequest("ok", 0) // no metrics: a no-op
}
