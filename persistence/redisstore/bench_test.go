package redisstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redisstream/coordinator/membersdk/redistest"
	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/redisstore"
)

// memberBlob is about the size of a serialized member record.
var memberBlob = []byte(`{"memberId":"10.0.3.7-m0","memberName":"orders-worker","memberEpoch":7,"state":"ACTIVE",` +
	`"assigned":[0,1,2,3],"pending":[],"revoking":[],"capacity":{"max":4,"available":4},"updatedAt":"` +
	strings.Repeat("x", 24) + `"}`)

// BenchmarkSaveGroupOneMember: one fenced, revision-checked SaveGroup that
// replaces one member record (the write a changed heartbeat costs).
func BenchmarkSaveGroupOneMember(b *testing.B) {
	ctx := context.Background()
	srv := redistest.Start(b)
	s, err := redisstore.New(srv.Client(), redisstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "billing"}
	a, err := s.Activate(ctx, key, "bench")
	if err != nil {
		b.Fatal(err)
	}
	rev := a.Revision
	change := persistence.GroupChange{PutMembers: map[string][]byte{"10.0.3.7-m0": memberBlob}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rev, err = s.SaveGroup(ctx, key, a.ActivationEpoch, rev, change)
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawHSetBaseline: the same member record written with a plain
// go-redis HSET (no fencing, no CAS): the floor for one round trip.
func BenchmarkRawHSetBaseline(b *testing.B) {
	ctx := context.Background()
	srv := redistest.Start(b)
	c := srv.Client()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.HSet(ctx, "bench:members", "10.0.3.7-m0", memberBlob).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkActivate100Members: recovery cost of one group with 100 members.
func BenchmarkActivate100Members(b *testing.B) {
	ctx := context.Background()
	srv := redistest.Start(b)
	s, err := redisstore.New(srv.Client(), redisstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	key := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "billing"}
	a, err := s.Activate(ctx, key, "bench")
	if err != nil {
		b.Fatal(err)
	}
	put := map[string][]byte{}
	for i := 0; i < 100; i++ {
		put[strings.Repeat("m", 1+i%7)+string(rune('a'+i%26))+string(rune('A'+i/26))] = memberBlob
	}
	if _, err := s.SaveGroup(ctx, key, a.ActivationEpoch, 0, persistence.GroupChange{Meta: memberBlob, PutMembers: put}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Activate(ctx, key, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
