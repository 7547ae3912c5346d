// Package fieldfill builds values with every field set, for tests that guard
// hand-kept field lists (a copy, a comparison, a wire conversion that names
// fields one by one): fill a value, change one leaf at a time, and check the
// code under test notices or carries each.
//
// Imports: the standard library only (it is used by the tests of the pure
// rules package, actors/groupstate).
package fieldfill
