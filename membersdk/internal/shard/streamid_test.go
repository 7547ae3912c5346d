package shard

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIDLessOrdersStreamIDsNumerically(t *testing.T) {
	require.True(t, IDLess("", "0-1"))
	require.False(t, IDLess("", ""))
	require.False(t, IDLess("5-0", ""))
	require.True(t, IDLess("9-5", "10-0"), "milliseconds compare as numbers")
	require.True(t, IDLess("10-9", "10-10"), "sequences compare as numbers")
	require.False(t, IDLess("10-10", "10-10"))
	require.True(t, IDLess("7", "7-1"), "a bare ms part has sequence 0")
	require.True(t, IDLess("1700000000000-3", "18446744073709551615-0"))
	require.True(t, IDLess("0-1", "0-2"))
	require.False(t, IDLess("1700000000000-0", "999999999999-5"), "13 digits above 12")
}
