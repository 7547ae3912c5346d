// Command memberproc is a member process for demos and end-to-end tests: one
// membersdk consumer whose handler records every entry it handles, and every
// acknowledgement, as JSON lines on stdout (test/recorder.Line). SIGTERM
// leaves the group gracefully; SIGKILL is a crash.
//
// Every "acked" record carries the shard's fencing token the member held
// when it handled the entry (membersdk.Message.FencingToken; 0 when the
// coordinator does not fence), so test/recorder can check the acks against
// the fence history: one owner per token, tokens never going back.
//
// It may import the member SDK, test/recorder, go-redis and the standard library.
package main
