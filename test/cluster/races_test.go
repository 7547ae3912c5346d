package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRacesAreClassifiedByTheRacingAccesses(t *testing.T) {
	upstreamOnly := `WARNING: DATA RACE
Read at 0x00c0003ca0b8 by goroutine 271:
  github.com/asynkron/protoactor-go/cluster/identitylookup/disthash.(*Manager).Get()
  github.com/redisstream/coordinator/actors/host.(*Host).askCluster()

Previous write at 0x00c0003ca0b8 by goroutine 12:
  github.com/asynkron/protoactor-go/cluster/identitylookup/disthash.(*Manager).onTopology()

Goroutine 271 (running) created at:
  github.com/redisstream/coordinator/cmd/coordinator.main()
==================
`
	ours := `WARNING: DATA RACE
Write at 0x00c000123456 by goroutine 7:
  github.com/redisstream/coordinator/actors/host.(*Host).refusing()

Previous read at 0x00c000123456 by goroutine 8:
  github.com/asynkron/protoactor-go/actor.(*actorContext).Receive()
==================
`
	mine, upstream := races("log line\n" + upstreamOnly + "more\n" + ours)
	require.Equal(t, 1, upstream)
	require.Len(t, mine, 1)
	require.Contains(t, mine[0], "refusing")
	require.Equal(t, []string{"actors/host.(*Host).refusing()"}, ourFrames(mine))
	mine, upstream = races("no races here")
	require.Empty(t, mine)
	require.Zero(t, upstream)
}
