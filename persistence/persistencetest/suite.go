package persistencetest

import (
	"testing"

	"github.com/redisstream/coordinator/persistence"
)

// Run runs the conformance suite against stores made by newStore.
func Run(t *testing.T, newStore func(t *testing.T) persistence.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s persistence.Store)
	}{
		{"StreamCreateGet", testStreamCreateGet},
		{"StreamList", testStreamList},
		{"StreamUpdate", testStreamUpdate},
		{"StreamUpdateConflicts", testStreamUpdateConflicts},
		{"StreamDelete", testStreamDelete},
		{"ActivateNewGroup", testActivateNewGroup},
		{"ActivateFencesOlder", testActivateFencesOlder},
		{"RevisionConflict", testRevisionConflict},
		{"CheckActivation", testCheckActivation},
		{"SaveLoadRoundTrip", testSaveLoadRoundTrip},
		{"EmptyChange", testEmptyChange},
		{"UnknownGroup", testUnknownGroup},
		{"ConcurrentSavesTwoActivations", testConcurrentSavesTwoActivations},
		{"ConcurrentSavesSameActivation", testConcurrentSavesSameActivation},
		{"ActivateSaveRace", testActivateSaveRace},
		{"ListGroupsSorted", testListGroupsSorted},
		{"DeleteThenReactivate", testDeleteThenReactivate},
		{"OddNames", testOddNames},
		{"NoKeyCollisions", testNoKeyCollisions},
		{"CanceledContext", testCanceledContext},
		{"Ping", testPing},
		{"RenewNode", testRenewNode},
		{"NodeExpires", testNodeExpires},
		{"Registry", testRegistry},
		{"RegistryExpires", testRegistryExpires},
		{"TakeoverList", testTakeoverList},
		{"LiveIndex", testLiveIndex},
		{"Handover", testHandover},
		{"Events", testEvents},
		{"Behind", testBehind},
		{"TokenGenerations", testTokenGenerations},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() { _ = s.Close() })
			tc.fn(t, s)
		})
	}
}
