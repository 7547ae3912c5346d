package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStreamIDLessOrdersStreamIDsNumerically(t *testing.T) {
	require.True(t, StreamIDLess("", "0-1"))
	require.False(t, StreamIDLess("", ""))
	require.False(t, StreamIDLess("5-0", ""))
	require.True(t, StreamIDLess("9-5", "10-0"), "milliseconds compare as numbers")
	require.True(t, StreamIDLess("10-9", "10-10"), "sequences compare as numbers")
	require.False(t, StreamIDLess("10-10", "10-10"))
	require.True(t, StreamIDLess("7", "7-1"), "a bare ms part has sequence 0")
	require.True(t, StreamIDLess("1700000000000-3", "18446744073709551615-0"))
	require.True(t, StreamIDLess("0-1", "0-2"))
	require.False(t, StreamIDLess("1700000000000-0", "999999999999-5"), "13 digits above 12")
}
