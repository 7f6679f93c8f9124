# schedq: every suite has a target; `make verify` runs them all with a summary.
GO       ?= go
PKGS     ?= ./...
BENCHTIME ?= 1x
COUNT    ?= 6

.PHONY: all test race vet verify bench bench-compare fmt linearizability conformance fuzz

# Modules of their own: the upstream kube-scheduler queues as conformance
# targets (they keep Kubernetes out of the main module's dependencies).
UPSTREAM_MODULES ?= $(wildcard conformance/upstream/v*)
RESULTS_DIR ?= $(CURDIR)/.conformance-results

all: test

# The test command of the README and of CI: vet, then every test with the
# race detector, each suite at its bounded CI size. The upstream module is
# vetted by its go test (default analyzers); a full go vet of it would add
# a pass over all of Kubernetes (see VET_UPSTREAM).
test: VET_UPSTREAM =
test: vet
	$(GO) test -race -count=1 $(PKGS)
	@# The upstream module is built without -race: a cold race build of
	@# Kubernetes costs CI about 3.5 more minutes, and what it would check is
	@# upstream's code and our single-goroutine adapter.
	cd conformance/upstream/v133 && $(GO) test -count=1 -run 'TestClassic|TestConcurrentClassic' ./...
	cd realsched && $(GO) test -count=1 ./...

# The upstream modules make vet vets in full (v1.33 only: vetting v1.37
# costs a full Kubernetes build). Even once Kubernetes is compiled, a full
# go vet computes vet facts over all of it (about a CPU-minute); go test
# vets every module it builds with its default analyzers, so make test and
# make verify set this empty and leave the upstream modules to go test.
VET_UPSTREAM ?= conformance/upstream/v133

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	@for m in $(VET_UPSTREAM); do echo "cd $$m && $(GO) vet ./..."; (cd $$m && $(GO) vet ./...) || exit 1; done

race: test

# The main job: every suite that exists, larger where a suite has a larger
# setting, with a line when each step starts and ends, then a summary of
# what each suite checked (scripts/verifyrun). VERIFY_ONLY selects steps by
# a regular expression over their names (scripts/verify -list shows them).
VERIFY_ONLY ?=
verify:
	@scripts/verify $(if $(VERIFY_ONLY),-only '$(VERIFY_ONLY)')

# Concurrent histories of the implementation checked against the model by
# porcupine, at the verify size; LINFLAGS overrides (-lin.runs, -lin.ops,
# -lin.clients, -lin.timeout). A failure prints the path of its HTML
# visualisation, under $SCHEDQ_VIS_DIR or the temp dir. The timeout is per
# history: one 8-client hints history in 900 needed 2m20s to be found
# linearizable on a loaded machine (-run TestReplay -lin.replay=...), so
# 2m was a flake, not a bound.
LINFLAGS ?= -lin.runs=300 -lin.ops=400 -lin.timeout=6m
linearizability:
	$(GO) test -race -count=1 -v ./linearizability/ $(LINFLAGS)

# The conformance suite against every target (model, impl, each upstream
# profile), then conformance/RESULTS.md: scenario x target with totals. The
# report is written even when a target fails, and the failure is returned.
# TESTFLAGS go to every go test (make verify passes -json to count).
TESTFLAGS ?=
conformance:
	@rm -rf $(RESULTS_DIR); mkdir -p $(RESULTS_DIR); status=0; \
	  SCHEDQ_CONFORMANCE_RESULTS=$(RESULTS_DIR) $(GO) test $(TESTFLAGS) -count=1 -run 'TestModel|TestImpl' ./conformance/ ./conformance/concurrent/ || status=1; \
	  for m in $(UPSTREAM_MODULES); do \
	    (cd $$m && SCHEDQ_CONFORMANCE_RESULTS=$(RESULTS_DIR) $(GO) test $(TESTFLAGS) -count=1 ./...) || status=1; \
	  done; \
	  $(GO) run ./conformance/cmd/conformance-report -in $(RESULTS_DIR) -out conformance/RESULTS.md || status=1; \
	  echo "wrote conformance/RESULTS.md"; exit $$status

# TLC on every configuration of tla/ (tla/README.md); the jar is
# $TLA2TOOLS_JAR, else the official release is downloaded, else SKIP.
# tla-graph regenerates tla/testdata/*.txt.gz, the TLC graphs the agreement
# test (go test ./tla/) compares the Go model with.
.PHONY: tlc tla-graph
tlc:
	@tla/run-tlc check
tla-graph:
	@tla/run-tlc graph

# Fuzz the queue for FUZZTIME: FuzzQueue decodes bytes into operation
# sequences and compares impl with model after every step, as the rapid
# state machine does. `make test` runs only its seed corpus
# (properties/testdata/fuzz/FuzzQueue); new finds land there on failure.
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzQueue$$' -fuzztime $(FUZZTIME) ./properties/

# The soak: TestSoak (impl/soak_test.go), every operation from many
# goroutines with the flushes running, CheckConsistency and the invariants
# checked all along, for DURATION under the race detector. `make test` runs
# the same test for 2 s.
.PHONY: soak
DURATION ?= 10m
soak:
	$(GO) test -race -count=1 -timeout 0 -run '^TestSoak$$' -v ./impl/ -soak.duration=$(DURATION)

# Benchmarks of the implementation. Compare runs with benchstat:
#   make bench > old.txt; ...; make bench > new.txt; benchstat old.txt new.txt
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count $(COUNT) ./impl/

# schedq against each upstream queue on the same workloads
# (internal/workload), side by side in one invocation per upstream module,
# then one table: workload, schedq, upstream, ratio. BENCHCOUNT runs of each
# benchmark; the raw outputs are kept in BENCH_DIR (a new temp dir unless
# set) for benchstat.
BENCHCOUNT ?= 6
BENCH_DIR ?=
bench-compare:
	@dir=$${BENCH_DIR:-$$(mktemp -d)}; mkdir -p $$dir; args=; \
	  for m in $(UPSTREAM_MODULES); do \
	    v=$$(basename $$m); echo "$$m: go test -bench . -count $(BENCHCOUNT) > $$dir/$$v.txt" >&2; \
	    (cd $$m && $(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) -timeout 0) > $$dir/$$v.txt || { cat $$dir/$$v.txt; exit 1; }; \
	    args="$$args $$(echo $$v | sed 's/^v1/v1./')=$$dir/$$v.txt"; \
	  done; \
	  $(GO) run ./internal/workload/cmd/benchtable $$args; \
	  echo "raw output: $$dir (machine: $$(nproc) CPUs, $$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"

# The real kube-scheduler v1.33.13 on upstream's queue and on schedq's,
# at scheduler_perf's size (realsched/, docs/realsched.md), REALSCHED_COUNT
# rounds of one run each (upstream then schedq per workload: interleaved,
# where go test -count would run each one back to back): raw benchmark
# lines in REALSCHED_OUT, then benchstat's upstream/schedq table.
.PHONY: realsched
REALSCHED_COUNT ?= 3
REALSCHED_FLAGS ?= -realsched.nodes=500 -realsched.pods=5000
REALSCHED_OUT ?= $(or $(TMPDIR),/tmp)/schedq-realsched.txt
realsched:
	@: > $(REALSCHED_OUT); cd realsched && for i in $$(seq $(REALSCHED_COUNT)); do \
	  $(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 0 $(REALSCHED_FLAGS) | tee -a $(REALSCHED_OUT) || exit 1; done
	@uptime; if command -v benchstat >/dev/null; then benchstat -col /queue $(REALSCHED_OUT); else echo "benchstat not on PATH: raw lines in $(REALSCHED_OUT)"; fi

fmt:
	gofmt -w $$(git ls-files '*.go')
