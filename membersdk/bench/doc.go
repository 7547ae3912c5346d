// Package bench holds the data-plane benchmark of the member SDK. It is not
// part of `make test`: run it with `make bench-sdk` or
//
//	cd membersdk && go test -run '^$' -bench DataPlane -benchtime 1x ./bench/
//
// It starts its own redis-server on loopback and a static in-process
// coordinator (every heartbeat is answered OK with every shard assigned, so
// the coordinator costs nothing), and measures in the same run:
//
//   - consumer throughput: a raw go-redis XREADGROUP+XACK loop against the
//     SDK consumer, same Redis, same stream, same batch size, no-op handler,
//     in sequential rounds and side by side (both at once, same window);
//   - acknowledgement cost of the shard fence: plain XACK against the fenced
//     transaction (membersdk.FencedAcker, the Consumer's path) and the fence
//     script (membersdk.NewFencedScriptAcker), 100 ids per call, interleaved per call;
//   - a read → transform → write one output → acknowledge pipeline,
//     at-least-once (the handler XADDs, the consumer acks through the fence)
//     against exactly-once (the output a Tx write, committed with the ack);
//   - producer throughput: raw XADD against Producer.Publish;
//   - consumer shutdown: cancel Run while the reader is blocked in
//     XREADGROUP, until Run returns;
//   - end-to-end latency p50/p99 at a fixed publish rate, raw loop against
//     the SDK.
//
// Raw and SDK rounds are interleaved and each figure is the median of its
// rounds, so that load from other work on the machine hits both sides alike.
// RSC_BENCH_QUICK=1 shrinks every section for a smoke run;
// RSC_BENCH_ONLY=consume,race,pipeline,fencedack,produce,shutdown,latency (any subset)
// runs only those sections.
//
// It may import membersdk, membersdk/protocol, membersdk/redistest, go-redis
// and the standard library.
package bench
