// Package sdkexample holds the end-to-end test of the member SDK's example
// program (membersdk/example) against a real coordinator started through
// test/harness and a real Redis Cluster. It lives in the server's module
// because the SDK module must not depend on the server. Its tests may import
// anything in the repository.
package sdkexample
