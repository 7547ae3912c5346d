package memstore_test

import (
	"testing"

	"github.com/redisstream/coordinator/persistence"
	"github.com/redisstream/coordinator/persistence/memstore"
	"github.com/redisstream/coordinator/persistence/persistencetest"
)

func TestConformance(t *testing.T) {
	persistencetest.Run(t, func(t *testing.T) persistence.Store { return memstore.New() })
}
