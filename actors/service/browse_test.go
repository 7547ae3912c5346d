package service

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

func TestShardOwnersListsEveryClaimant(t *testing.T) {
	got := shardOwners(map[string][]protocol.ShardID{
		"b": protocol.ShardIDs([]int{1, 2}),
		"a": protocol.ShardIDs([]int{2, 5}),
	})
	require.Equal(t, map[int]string{1: "b", 2: "a,b", 5: "a"}, got)
}

// incarnationOf is the part of an owner name after its last '/'.
func TestIncarnationOf(t *testing.T) {
	require.Equal(t, "7f3a", incarnationOf("node-1/7f3a"))
	require.Equal(t, "b", incarnationOf("a/x/b"))
	require.Equal(t, "plain", incarnationOf("plain"))
}
