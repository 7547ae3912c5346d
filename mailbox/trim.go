package mailbox

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// trimmer drops entries the consumer group has delivered (NOACK: nothing
// waits for an ack) from a request stream, at most once per trimEvery per
// stream: XTRIM key MINID ~ <last id read>. Members bound the stream with
// XADD … MAXLEN ~ mailbox.max-requests; this keeps it near empty while
// readers keep up, whatever members send.
type trimmer struct {
	rdb redis.UniversalClient
	mu  sync.Mutex
	at  map[string]time.Time // key → when it was last trimmed
}

const trimEvery = time.Second

func (t *trimmer) consumed(ctx context.Context, key, lastID string, now time.Time) {
	t.mu.Lock()
	due := now.Sub(t.at[key]) >= trimEvery
	if due {
		t.at[key] = now
	}
	t.mu.Unlock()
	if due {
		// Entries up to lastID were delivered to some node: the group's
		// last-delivered id is past them, no node reads them again.
		_ = t.rdb.XTrimMinIDApprox(ctx, key, lastID, 0).Err()
	}
}
