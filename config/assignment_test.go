package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAssignmentMoveCap(t *testing.T) {
	cfg, err := Load([]string{"--assignment.max-moves-per-round=64", "--assignment.max-moves-fraction=0.1"}, nil)
	require.NoError(t, err)
	assert.Equal(t, 64, cfg.Assignment.MaxMovesPerRound)
	assert.Equal(t, 0.1, cfg.Assignment.MaxMovesFraction)
	assert.Zero(t, Default().Assignment, "the move cap is off by default")
	for _, bad := range []string{"--assignment.max-moves-per-round=-1", "--assignment.max-moves-fraction=1.5", "--assignment.max-moves-fraction=-0.1"} {
		_, err := Load([]string{bad}, nil)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "assignment.max-moves-", bad)
	}
}
