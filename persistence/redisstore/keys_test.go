package redisstore

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/redisstream/coordinator/persistence"
)

func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{"", "orders", "orders-eu_1.x:y", "a b", "{x}", "a|b", "%", "%41", "사용자", "\x00\xff"} {
		e := escape(s)
		require.NotContains(t, e, "{")
		require.NotContains(t, e, "}")
		require.NotContains(t, e, "|")
		back, err := unescape(e)
		require.NoError(t, err)
		require.Equal(t, s, back)
	}
	require.Equal(t, "orders-eu_1.x:y", escape("orders-eu_1.x:y"), "valid names pass through")
	require.Equal(t, "a%20b%7Bc%7D%7C%25", escape("a b{c}|%"))
	_, err := unescape("abc%4")
	require.Error(t, err)
	_, err = unescape("%zz")
	require.Error(t, err)
}

func TestKeyLayout(t *testing.T) {
	k, err := newKeys("")
	require.NoError(t, err)
	gk := persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "billing"}
	require.Equal(t, "rsc:{g:orders|billing}:meta", k.groupMeta(gk))
	require.Equal(t, "rsc:{g:orders|billing}:members", k.groupMembers(gk))
	require.Equal(t, "rsc:{s:orders}:stream", k.stream("orders"))
	require.Equal(t, "rsc:streams", k.streams())
	require.Equal(t, "rsc:groups", k.groups())

	odd := persistence.GroupKey{StreamPrefix: "a}b", ConsumerGroup: "{c"}
	require.Equal(t, "rsc:{g:a%7Db|%7Bc}:meta", k.groupMeta(odd))
	// One group's keys share a Cluster slot, whatever the names.
	for _, key := range []persistence.GroupKey{gk, odd, {StreamPrefix: "", ConsumerGroup: ""}} {
		require.Equal(t, slot(k.groupMeta(key)), slot(k.groupMembers(key)))
	}
	back, err := parseGroupID(groupID(odd))
	require.NoError(t, err)
	require.Equal(t, odd, back)

	_, err = newKeys("bad{prefix")
	require.ErrorContains(t, err, "bad{prefix")
}

// slot is the Redis Cluster hash slot of key (hash tags honoured).
func slot(key string) int {
	if i := indexByte(key, '{'); i >= 0 {
		if j := indexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for b := 0; b < 8; b++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// Names as the reference accepts them (':' , spaces, Unicode, '|', '/')
// give every group its own keys: no pair of distinct groups shares a key,
// one group's keys share a slot, and the index entry parses back.
func TestKeyLayoutWithReferenceNames(t *testing.T) {
	k, err := newKeys("")
	require.NoError(t, err)
	groups := []persistence.GroupKey{
		{StreamPrefix: "orders:v2", ConsumerGroup: "svc:workers"},
		{StreamPrefix: "orders", ConsumerGroup: "v2:svc:workers"},
		{StreamPrefix: "orders:v2:svc", ConsumerGroup: "workers"},
		{StreamPrefix: "a|b", ConsumerGroup: "c"},
		{StreamPrefix: "a", ConsumerGroup: "b|c"},
		{StreamPrefix: "with space", ConsumerGroup: "g"},
		{StreamPrefix: "with%20space", ConsumerGroup: "g"},
		{StreamPrefix: "사용자", ConsumerGroup: "소비자 그룹"},
		{StreamPrefix: "a/b", ConsumerGroup: "c"},
		{StreamPrefix: "a", ConsumerGroup: "b/c"},
		{StreamPrefix: "x}:meta", ConsumerGroup: "y"},
	}
	seen := map[string]persistence.GroupKey{}
	for _, g := range groups {
		for _, key := range []string{k.groupMeta(g), k.groupMembers(g), k.stream(g.StreamPrefix) + "|" + g.ConsumerGroup} {
			prev, dup := seen[key]
			require.False(t, dup, "%v and %v share key %q", prev, g, key)
			seen[key] = g
		}
		require.Equal(t, slot(k.groupMeta(g)), slot(k.groupMembers(g)))
		back, err := parseGroupID(groupID(g))
		require.NoError(t, err)
		require.Equal(t, g, back)
	}
	require.Equal(t, "rsc:{g:orders:v2|svc:workers}:meta", k.groupMeta(groups[0]), "readable where it can be")
}

// The provisioning group can never be a user's consumer group: API names
// refuse control characters, and EnsureStreams destroys this group.
func TestProvisionGroupIsNotAValidName(t *testing.T) {
	hasControl := false
	for _, r := range provisionGroup {
		if r < 0x20 || r == 0x7f {
			hasControl = true
		}
	}
	require.True(t, hasControl)
}
