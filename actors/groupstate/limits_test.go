package groupstate

import (
	"testing"
	"time"
)

func TestJoinBucketDefaultsAndRestore(t *testing.T) {
	var b joinBucket
	b, ok := b.take(t0, 0.5, 0) // burst ≤ 0: max(1, floor(rate)) = 1
	if !ok {
		t.Fatal("first token")
	}
	if _, ok := b.take(t0.Add(time.Second), 0.5, 0); ok {
		t.Fatal("half a token is not a token")
	}
	if _, ok := b.take(t0.Add(2*time.Second), 0.5, 0); !ok {
		t.Fatal("one token after 2 s at 0.5/s")
	}
}
