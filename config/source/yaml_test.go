package source

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeyLinesRecordsEveryKeyInsideListsToo(t *testing.T) {
	lines, err := KeyLines([]byte("http:\n  addr: \":8080\"\nauth:\n  users:\n    - username: a\n      password: \"0123\"\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"http": 1, "http.addr": 2, "auth": 3, "auth.users": 4, "auth.users[0].username": 5, "auth.users[0].password": 6}, lines)
}
