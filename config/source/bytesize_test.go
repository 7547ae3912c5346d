package source

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestByteSize(t *testing.T) {
	good := map[string]ByteSize{
		"1MiB": MiB, "1mib": MiB, "1 MiB": MiB, "1Mi": MiB, "512KiB": 512 * KiB, "1GiB": GiB,
		"1048576": MiB, "0": 0, "100B": 100, "1KB": 1000, "1MB": 1_000_000, "1.5MiB": 3 * MiB / 2,
		" 2KiB ": 2 * KiB,
	}
	for in, want := range good {
		got, err := ParseByteSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "MiB", "1XB", "-1", "1.5", "1e3", "lots", "1MiBs", "99999999999GiB"} {
		_, err := ParseByteSize(in)
		assert.Error(t, err, in)
	}
	assert.Equal(t, "1MiB", MiB.String())
	assert.Equal(t, "1536KiB", (3 * MiB / 2).String())
	assert.Equal(t, "1000B", ByteSize(1000).String())
	assert.Equal(t, "0B", ByteSize(0).String())
	assert.Equal(t, "2GiB", (2 * GiB).String())

	var b ByteSize
	require.NoError(t, b.UnmarshalText([]byte("64KiB")))
	assert.Equal(t, 64*KiB, b)
	txt, _ := b.MarshalText()
	assert.Equal(t, "64KiB", string(txt))
}
