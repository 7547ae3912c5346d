package reconcile

import (
	"testing"

	"github.com/redisstream/coordinator/actors/groupstate/model"
)

func TestLimit(t *testing.T) {
	for _, c := range []struct {
		n      int
		f      float64
		shards int
		want   int
	}{{0, 0, 1024, 0}, {64, 0, 1024, 64}, {0, 0.1, 1024, 103}, {64, 0.01, 1024, 11}, {5, 0.5, 1024, 5}, {0, 0.001, 10, 1}, {0, 0.5, 0, 0}} {
		if got := Limit(model.Config{MaxMovesPerRound: c.n, MaxMovesFraction: c.f}, c.shards); got != c.want {
			t.Errorf("Limit(%d, %g, %d shards) = %d, want %d", c.n, c.f, c.shards, got, c.want)
		}
	}
}
