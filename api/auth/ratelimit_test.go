package auth

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLimiterEvictsFullBucketsFirst(t *testing.T) {
	clock := newClock()
	l := newLimiter(1, 1, clock.Now)
	ok, _ := l.allow("hot")
	require.True(t, ok)
	for i := 0; i < maxBuckets+10; i++ {
		l.allow(fmt.Sprint("k", i))
	}
	require.LessOrEqual(t, len(l.buckets), maxBuckets)
	clock.Advance(2 * time.Second) // everything full again: evictable without loss
	for i := 0; i < 100; i++ {
		l.allow(fmt.Sprint("n", i))
	}
	require.LessOrEqual(t, len(l.buckets), maxBuckets)
}
