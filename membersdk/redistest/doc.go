// Package redistest starts real redis-server processes (or a Redis Cluster of
// them) for tests.
//
// Each Start gives the test its own redis-server on a free loopback port with
// its own data directory (t.TempDir()); it is killed in t.Cleanup. There are
// no globals: tests may start as many servers as they like, in parallel.
//
// If redis-server is not on PATH the test fails with a clear message (CI
// installs it), unless RSC_TEST_ALLOW_NO_REDIS=1, in which case it is skipped.
//
// It lives in the member SDK's module so that the tests of both modules (the
// SDK's and the server's) use one starter without the SDK depending on the
// server; applications may use it to test their handlers against a real
// Redis too. It may import the standard library and go-redis only.
package redistest
