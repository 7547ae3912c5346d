package membersdk

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIDLessOrdersStreamIDsNumerically(t *testing.T) {
	require.True(t, idLess("", "0-1"))
	require.False(t, idLess("", ""))
	require.False(t, idLess("5-0", ""))
	require.True(t, idLess("9-5", "10-0"), "milliseconds compare as numbers")
	require.True(t, idLess("10-9", "10-10"), "sequences compare as numbers")
	require.False(t, idLess("10-10", "10-10"))
	require.True(t, idLess("7", "7-1"), "a bare ms part has sequence 0")
	require.True(t, idLess("1700000000000-3", "18446744073709551615-0"))
	require.True(t, idLess("0-1", "0-2"))
	require.False(t, idLess("1700000000000-0", "999999999999-5"), "13 digits above 12")
}
