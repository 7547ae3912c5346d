# Redis Stream Coordinator. `make demo` and `make test` need only Go (and
# install redis-server from Debian packages when it is missing).
GO        ?= go
PKGS      ?= ./...
# The member SDK is a module of its own (membersdk/go.mod): its packages are
# tested and vetted from its directory, relative to it.
SDK_PKGS  ?= ./...
FUZZTIME  ?= 30s

.PHONY: all build test test-k8s vet check demo bench bench-quick bench-micro bench-sdk bench-cluster bench-movecap fuzz clean redis chaos chaos-eos proto

all: build

# Static binaries (no cgo) with the version stamped: `bin/coordinator --version`.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  = -s -w -X main.version=$(VERSION)
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/coordinator ./cmd/coordinator
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/streamctl ./cmd/streamctl

redis:
	@bash test/ensure-redis.sh

# VET_FLAGS are build flags for vet. `make test` vets with -race: vet then
# compiles every dependency the way the race pass needs it, and that pass
# reuses it (a fresh machine compiles k8s.io/client-go and the rest once, not
# twice: 279 s instead of 407 s of a cold CI run). The builds tests run
# themselves (the demo's, cmd/coordinator's) use the race flag too
# (test/harness.BuildFlags). Files built only without the race detector are
# vetted by `make vet`.
VET_FLAGS ?=
vet:
	$(GO) vet $(VET_FLAGS) $(PKGS)
	cd membersdk && $(GO) vet $(VET_FLAGS) $(SDK_PKGS)

# Repository hygiene: no tracked binaries over 1 MiB, both modules' go.mod tidy.
check:
	@bash test/check-repo.sh

# Unit, integration (real redis-server) and end-to-end tests, race detector on,
# of both modules: the server's, then the member SDK's (membersdk/).
# The in-process cluster tests (several protoactor remotes in one process, where
# the library races on process-wide state) run in a second pass without -race,
# and so do the rules' heavy tests: the rules are single-threaded, so under
# -race the randomized sweeps (TestSimulation*, TestHandOverRandomMoves) run a
# few seeds each and the 1,024-shard join storms (TestMoveCapJoinStorm, the
# *_storm scenarios) are skipped; this pass runs all of them in full.
#
# Run time on a 2-core machine: the race pass runs 4 test processes at once
# (-p 4; the default is one per core) because the end-to-end packages mostly
# wait on processes and timers: test/chaos, e2e, cluster and reshard take
# 171 s together instead of 269 s. Its test processes share the coordinator
# and member binaries they build (test/harness.BinaryOf), in a fresh
# directory per run removed at the end. The SDK's tests and the non-race
# pass then run side by side (the SDK's output is printed after); every pass
# runs, and the target fails if any failed. Meanwhile the test binaries of
# those two passes are compiled at the lowest CPU priority (nice 19): they
# fill what the race pass leaves idle while its end-to-end suites wait on
# processes and timers, and take nothing from it otherwise.
TEST_P ?= 4
test: VET_FLAGS = -race
test: redis check vet
	@tmp=$$(mktemp -d -t rsc-test-XXXXXX) || exit 1; trap 'rm -rf "$$tmp"' EXIT; mkdir "$$tmp/bin" || exit 1; \
	rc=0; \
	{ nice -n 19 $(GO) test -count=1 -run '^$$' ./actors/host/ ./actors/groupstate/ && \
	  cd membersdk && nice -n 19 $(GO) test -race -count=1 -run '^$$' $(SDK_PKGS); } >/dev/null 2>&1 & warm=$$!; \
	set -x; \
	COORDINATOR_TEST_BINDIR=$$tmp/bin $(GO) test -race -count=1 -p $(TEST_P) -timeout 15m $(PKGS) || rc=1; \
	wait $$warm; \
	(cd membersdk && $(GO) test -race -count=1 -timeout 15m $(SDK_PKGS)) >"$$tmp/sdk.log" 2>&1 & sdk=$$!; \
	$(GO) test -count=1 -timeout 5m -run 'Cluster|Simulation|RandomMoves|Storm|Scenarios' ./actors/host/ ./actors/groupstate/ || rc=1; \
	wait $$sdk || rc=1; \
	{ set +x; } 2>/dev/null; echo "membersdk:" && cat "$$tmp/sdk.log" && exit $$rc

# The kubernetes cluster provider against a real API server (test/k8s, a
# module of its own): kube-apiserver built from k8s.io/kubernetes at the
# version test/k8s/go.mod pins, over Debian's etcd-server (installed by
# test/ensure-etcd.sh when missing), three coordinator pods with the RBAC
# objects of docs/deploy/kubernetes.yaml. Opt-in: not in `make test` nor in
# CI (.ci/run). The first run builds kube-apiserver into ~/.cache/rsc-k8s
# (RSC_K8S_CACHE to change it): 49 minutes on this 2-core box shared with
# other builds (13 CPU-minutes: 674 s user, 104 s system), with an empty Go
# build cache; later runs take about 50 s. Linux; needs root or unprivileged
# user namespaces (the tests run in network, UTS and mount namespaces of
# their own).
test-k8s: redis
	@bash test/ensure-etcd.sh
	cd test/k8s && $(GO) mod tidy -diff
	cd test/k8s && $(GO) vet ./...
	cd test/k8s && $(GO) test -count=1 -timeout 45m -v ./...

# A walk-through on the embedded development Redis (or redis-server when on PATH).
# It removes its temporary directory at the end; `make demo DEMO_FLAGS=-keep` keeps it.
demo:
	$(GO) run ./cmd/demo $(DEMO_FLAGS)

# Whole-system benchmark (test/sysbench): redis-server, the coordinator and
# simulated members as separate processes on loopback, then the node's memory
# per member (100,000 members in 1,000 groups, on the runtime's defaults and with
# GOMEMLIMIT=320MiB) and its Redis commands with 1,000 idle active groups (single
# node and a 2-node cluster), both from actors/host's benchmarks run in processes
# of their own; rewrites the whole-system section of docs/BENCHMARKS.md. About
# 6 minutes (under 10); bench-quick (20,000 members, 3 s idle windows) about
# 1m40s (prints the section, rewrites nothing).
bench: redis
	RSC_BENCH_SYSTEM=1 RSC_BENCH_DOCS=$(CURDIR)/docs/BENCHMARKS.md $(GO) test -count=1 -timeout 15m -run TestSystemBenchmark -v ./test/sysbench/ | grep -vE '^=== (RUN|PAUSE|CONT)'

bench-quick: redis
	RSC_BENCH_SYSTEM=1 RSC_BENCH_QUICK=1 $(GO) test -count=1 -timeout 5m -run TestSystemBenchmark -v ./test/sysbench/ | grep -vE '^=== (RUN|PAUSE|CONT)'

# Micro-benchmarks with their same-run baselines (see docs/BENCHMARKS.md).
bench-micro: redis
	$(GO) test -run '^$$' -bench . -benchmem -count=1 ./actors/groupstate/ ./persistence/redisstore/ ./api/
	cd membersdk && $(GO) test -run '^$$' -bench . -benchmem -count=1 ./protocol/

# Data-plane benchmark of the member SDK against raw go-redis loops on its own
# redis-server (see docs/BENCHMARKS.md, "Data plane (SDK)"); about 1 minute.
# RSC_BENCH_QUICK=1 for a smoke run.
bench-sdk: redis
	cd membersdk && $(GO) test -run '^$$' -bench DataPlane -benchtime 1x -count=1 -timeout 10m ./bench/

# Heartbeat throughput of an automanaged cluster of 1, 2 and 3 coordinator
# processes on this machine (same run, ratios to one node) and the cost of
# forwarding a heartbeat to another node (see docs/BENCHMARKS.md, "Cluster");
# about 45 s. RSC_BENCH_QUICK=1 for a smoke run.
bench-cluster: redis
	RSC_BENCH_CLUSTER=1 $(GO) test -count=1 -timeout 10m -run TestClusterBenchmark -v ./test/clusterbench/ | grep -E 'BENCH|^(ok|FAIL|---)'

# The move cap with real processes (see docs/BENCHMARKS.md, "Move cap"): 50
# members join a 1,024-shard group of 10 at once, without a cap and with two
# caps, at the default 3 s heartbeat interval; about 3 minutes. Not part of
# `make bench` (its figures are read by hand beside the round model's).
bench-movecap: redis
	RSC_BENCH_MOVECAP=1 $(GO) test -count=1 -timeout 15m -run TestMoveCapJoinStormBenchmark -v ./test/e2e/ | grep -E 'BENCH|^(ok|FAIL|---)'

# Each fuzz target for FUZZTIME.
fuzz:
	cd membersdk && $(GO) test -run '^$$' -fuzz FuzzDecodeHeartbeat -fuzztime $(FUZZTIME) ./protocol/
	cd membersdk && $(GO) test -run '^$$' -fuzz FuzzAppendHeartbeatResponse -fuzztime $(FUZZTIME) ./protocol/
	$(GO) test -run '^$$' -fuzz FuzzHeartbeat -fuzztime $(FUZZTIME) ./actors/groupstate/

# Long chaos run (see docs/RELIABILITY.md): faults from a seed against real
# processes, CHAOS_COORDINATORS coordinator processes forming one cluster
# (node kill, pause and graceful restart among the faults; 1 = a single
# coordinator, no cluster); writes docs/chaos-report.json. `go test ./...`
# runs a 60s variant.
CHAOS_SEED         ?= 20261129
CHAOS_DURATION     ?= 5m
CHAOS_COORDINATORS ?= 3
# The exactly-once pipeline under the same faults (TestChaosExactlyOnce: an
# idempotent producer, members committing an output and a sum with each
# entry), long: 5 minutes, 3 coordinators; writes docs/chaos-eos-report.json.
chaos-eos: redis
	RSC_CHAOS_SEED=$(CHAOS_SEED) RSC_CHAOS_DURATION=$(CHAOS_DURATION) RSC_CHAOS_COORDINATORS=$(CHAOS_COORDINATORS) \
		RSC_CHAOS_REPORT=$(CURDIR)/docs/chaos-eos-report.json \
		$(GO) test -race -count=1 -timeout 30m -run '^TestChaosExactlyOnce$$' -v ./test/chaos/

chaos: redis
	RSC_CHAOS_SEED=$(CHAOS_SEED) RSC_CHAOS_DURATION=$(CHAOS_DURATION) RSC_CHAOS_COORDINATORS=$(CHAOS_COORDINATORS) \
		RSC_CHAOS_REPORT=$(CURDIR)/docs/chaos-report.json \
		$(GO) test -race -count=1 -timeout 30m -run '^TestChaos$$' -v ./test/chaos/

# Regenerate the protobuf messages that cross nodes (actors/wire). Needs
# Debian's protobuf-compiler; installs the Go plugin at the version go.mod pins.
PROTOC_GEN_GO_VERSION ?= v1.36.12
proto:
	@command -v protoc >/dev/null || { echo "protoc missing: apt-get install protobuf-compiler"; exit 1; }
	GOBIN=$(CURDIR)/bin $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	PATH=$(CURDIR)/bin:$$PATH protoc --go_out=. --go_opt=module=github.com/redisstream/coordinator actors/wire/wire.proto

clean:
	rm -rf bin
