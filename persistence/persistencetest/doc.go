// Package persistencetest is the conformance suite every persistence.Store
// implementation must pass. Run it from the implementation's tests:
//
//	func TestConformance(t *testing.T) {
//		persistencetest.Run(t, func(t *testing.T) persistence.Store { return newStore(t) })
//	}
//
// newStore is called once per subtest and must return an empty store (a
// fresh key prefix is enough); the suite closes it.
//
// It may import persistence, testify and the standard library — never a store implementation.
package persistencetest
