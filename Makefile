# schedq: every suite has a target; `make verify` runs them all with a summary.
GO       ?= go
PKGS     ?= ./...
BENCHTIME ?= 1x
COUNT    ?= 6

.PHONY: all test test-main test-kubernetes race vet verify bench bench-compare bench-compare-podgroups bench-compare-prequeue fmt linearizability conformance fuzz

# The upstream kube-scheduler queues as conformance targets: one module of
# its own (it keeps Kubernetes out of the main module's dependencies),
# conformance/upstream, built once per release: go.mod for the newest
# released version, go.vNNN.mod with build tag k8sNNN for each other (its
# doc.go says how). The releases are data: UPSTREAM_TABLE lists each with
# its modfile, tag and Go toolchain (GOTOOLCHAIN: v1.38 needs go1.27.3,
# fetched by the go command for that release's builds only), and adding
# one is a line there. UPSTREAM_RELEASES are the releases the matrix runs
# (all listed); upstream_flags turns one into go test's flags and
# upstream_go into its go command, and in a recipe's shell loop over $$r,
# $(upstream_vars) sets f (the flags) and tc (the toolchain).
# KUBERNETES=../kubernetes makes `make conformance` run the targets against
# a local checkout instead (conformance/cmd/k8sbranch; KUBERNETES_BASE
# names the release it is based on when git cannot tell).
UPSTREAM_DIR      := conformance/upstream
UPSTREAM_TABLE    := $(UPSTREAM_DIR)/releases.txt
upstream_field     = $(shell awk -v r=$(1) '!/^\#/ && $$1 == r {print $$$(2)}' $(UPSTREAM_TABLE))
UPSTREAM_RELEASES ?= $(shell awk '!/^\#/ && NF {print $$1}' $(UPSTREAM_TABLE))
upstream_flags     = $(if $(filter go.mod,$(call upstream_field,$(1),3)),,-modfile=$(call upstream_field,$(1),3) -tags $(call upstream_field,$(1),4))
upstream_go        = GOTOOLCHAIN=$(call upstream_field,$(1),5) $(GO)
upstream_vars      = set -- $$(awk -v r=$$r '!/^\#/ && $$1 == r {print $$3, $$4, $$5}' $(CURDIR)/$(UPSTREAM_TABLE)); \
	  [ $$\# = 3 ] || { echo "release $$r is not in $(UPSTREAM_TABLE)" >&2; exit 1; }; \
	  f=; [ "$$1" = go.mod ] || f="-modfile=$$1 -tags $$2"; tc=$$3
KUBERNETES        ?=
KUBERNETES_BASE   ?=
RESULTS_DIR ?= $(CURDIR)/.conformance-results
# The report make conformance and make generated write: the tracked
# conformance/RESULTS.md, refreshed on purpose by make conformance; make
# verify points it into its own report directory and changes no tracked file.
REPORT ?= conformance/RESULTS.md

all: test

# The test command of the README and of CI: vet, then every test with the
# race detector, each suite at its bounded CI size. The upstream module is
# vetted by its go test (default analyzers); a full go vet of it would add
# a pass over all of Kubernetes (see VET_UPSTREAM).
test:
	@# The Kubernetes half (test-kubernetes: a cold Kubernetes build, then
	@# runs that mostly wait on the scheduler's timers) starts first and
	@# runs beside vet and the main module's tests, its output printed when
	@# both are done: it is the longest chain of a cold make test (the
	@# realsched build alone is about 12 CPU-minutes of its 17-20).
	@k8s=$$(mktemp); echo "make test: the Kubernetes half (make test-kubernetes) runs in the background; its output follows the main module's" >&2; \
	  ( $(MAKE) --no-print-directory test-kubernetes > $$k8s 2>&1; echo "test-kubernetes: exit $$?" >> $$k8s ) & \
	  status=0; { $(MAKE) --no-print-directory vet VET_UPSTREAM= && $(MAKE) --no-print-directory test-main; } || status=1; wait; \
	  cat $$k8s; tail -1 $$k8s | grep -qx 'test-kubernetes: exit 0' || status=1; rm -f $$k8s; exit $$status

# The main module's part of make test.
test-main:
	@# The mutation test (one build per mutant, 2-3 minutes) runs in make
	@# verify ("properties: mutants caught"): with it, a cold make test took
	@# 10m04s on the 2-core CI machine, over its 10-minute budget.
	$(GO) test -race -count=1 -skip '^TestMutantsAreCaught$$' $$($(GO) list $(PKGS) | grep -v '/tla$$')
	@# The TLA+ agreement test walks pure data, one goroutine per graph: the
	@# race detector has nothing to find there and made it the slowest
	@# package of a cold make test (120 s of about 10 minutes), so it runs
	@# without -race.
	$(GO) test -count=1 -short ./tla/
	@# The generated run at make test's size: 300 steps of each profile's
	@# TLA+ graph (GraphExt, GraphHints, cut to one Pop and one tick), each a
	@# shortest scenario ending in that step, on the model and impl.
	@gen=$$(mktemp -d) && $(GO) test -count=1 -run '^TestEdgeScenarios$$' ./tla/ -edges.out=$$gen -edges.small -edges.max=300 -edges.cfg=GraphExt.cfg,GraphHints.cfg && \
	  $(GO) test -race -count=1 -run '^TestGenerated$$' ./conformance/ -generated=$$gen; s=$$?; rm -rf $$gen; exit $$s

# The Kubernetes part of make test: the v1.33 upstream target is built
# first (its Kubernetes packages are a subset of the real scheduler's),
# then its tests and the real scheduler's build and runs go side by side,
# since both mostly wait (race trials, the scheduler's timers) while the
# build needs the CPU. The runs on the fake clientset go side by side too
# (-parallel; sideBySide in realsched). Built without -race: a cold race
# build of Kubernetes costs CI about 3.5 more minutes, and what it would
# check is upstream's code and our adapters.
test-kubernetes:
	cd $(UPSTREAM_DIR) && $(call upstream_go,133) test $(call upstream_flags,133) -count=1 -run '^$$' .
	@up=$$(mktemp); rs=$$(mktemp); \
	  echo "cd $(UPSTREAM_DIR) && go test $(call upstream_flags,133) -count=1 -run 'TestClassic|TestConcurrentClassic' .  (beside the next)"; \
	  echo "cd realsched && go test -count=1 -parallel 4 ./..."; \
	  ( cd $(UPSTREAM_DIR) && $(call upstream_go,133) test $(call upstream_flags,133) -count=1 -run 'TestClassic|TestConcurrentClassic' . > $$up 2>&1 ) & u=$$!; \
	  ( cd realsched && $(GO) test -count=1 -parallel 4 ./... > $$rs 2>&1 ); r=$$?; wait $$u; s=$$?; \
	  cat $$up $$rs; rm -f $$up $$rs; [ $$s = 0 ] && [ $$r = 0 ]

# The upstream releases make vet vets in full (v1.33 only: vetting another
# release costs a full Kubernetes build). Even once Kubernetes is compiled, a
# full go vet computes vet facts over all of it (about a CPU-minute); go test
# vets every package it builds with its default analyzers, so make test and
# make verify set this empty and leave the upstream module to go test.
VET_UPSTREAM ?= 133

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	@for r in $(VET_UPSTREAM); do $(upstream_vars); \
	  echo "cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc $(GO) vet $$f ./..."; (cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc $(GO) vet $$f ./...) || exit 1; done

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
# history and generous: histories have quiescent points whose Snapshot pins
# the model state (linearizability.Workload.QuiescentEvery), so a check's
# search is bounded by the stretch between two points, and the run ends by
# printing its slowest check. The package's own time limit is go test's
# -timeout: 1,800 histories under -race took 10 minutes at load 14 (the
# checks themselves at most 4 s each), just over go test's default.
LINFLAGS ?= -lin.runs=300 -lin.ops=400 -lin.timeout=1m
linearizability:
	$(GO) test -race -count=1 -timeout 45m -v ./linearizability/ $(LINFLAGS)

# The conformance suite against every target (model, impl, each upstream
# release in each profile it can run), then conformance/RESULTS.md:
# scenario x target with totals and the release matrix. The report is
# written even when a target fails, and the failure is returned. TESTFLAGS
# go to every go test (make verify passes -json to count). Each release is
# compiled once, by its one go test (the scenarios, random runs, concurrent
# checks and nominator of both profiles are one package); upstream-build
# says first what a cold build costs. With KUBERNETES set, the targets run
# against that checkout instead, and the report says what differs from the
# release it is based on.
TESTFLAGS ?=
ifeq ($(KUBERNETES),)
conformance: upstream-cost
	@mkdir -p $(RESULTS_DIR); find $(RESULTS_DIR) -mindepth 1 -maxdepth 1 ! -name generated -exec rm -rf {} +; status=0; \
	  SCHEDQ_CONFORMANCE_RESULTS=$(RESULTS_DIR) $(GO) test $(TESTFLAGS) -count=1 -run 'TestModel|TestImpl' ./conformance/ ./conformance/concurrent/ || status=1; \
	  for r in $(UPSTREAM_RELEASES); do $(upstream_vars); \
	    echo "conformance: kube-scheduler release $$r (cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc go test $$f)" >&2; \
	    (cd $(UPSTREAM_DIR) && SCHEDQ_CONFORMANCE_RESULTS=$(RESULTS_DIR) GOTOOLCHAIN=$$tc $(GO) test $(TESTFLAGS) $$f -count=1 -timeout 30m .) || status=1; \
	  done; \
	  $(GO) run ./conformance/cmd/conformance-report -in $(RESULTS_DIR) -out $(REPORT) || status=1; \
	  echo "wrote $(REPORT)"; exit $$status
else
conformance:
	$(GO) run ./conformance/cmd/k8sbranch -kubernetes '$(KUBERNETES)' $(if $(KUBERNETES_BASE),-base '$(KUBERNETES_BASE)') -results '$(RESULTS_DIR)'
endif

# The generated run (issue 24): for GENERATED_MAX steps of each TLA+ graph
# (GraphExt, GraphHints, GraphHintsExt; spread evenly over the graph), a
# shortest scenario ending in that step (tla/edges_test.go), run on the
# model, impl and every upstream release in each mode it has
# (conformance.RunGenerated): failures are grouped under the differences
# the catalogue declares, any other fails. make verify runs it. The results
# go to RESULTS_DIR/generated (make conformance keeps that directory), and
# RESULTS.md is rewritten with them if RESULTS_DIR holds conformance results.
GENERATED_MAX ?= 500
GENERATED_DIR ?=
.PHONY: generated
generated:
	@gen=$${GENERATED_DIR:-$$(mktemp -d)}; status=0; \
	  echo "generated: at most $(GENERATED_MAX) scenarios per graph (GENERATED_MAX), into $$gen" >&2; \
	  $(GO) test -count=1 -timeout 30m -run '^TestEdgeScenarios$$' ./tla/ -edges.out=$$gen -edges.max=$(GENERATED_MAX) || exit 1; \
	  cat $$gen/*/INDEX; \
	  rm -rf $(RESULTS_DIR)/generated; export SCHEDQ_CONFORMANCE_RESULTS=$(RESULTS_DIR); \
	  $(GO) test $(TESTFLAGS) -count=1 -run '^TestGenerated$$' ./conformance/ -generated=$$gen || status=1; \
	  for r in $(UPSTREAM_RELEASES); do $(upstream_vars); \
	    echo "generated: kube-scheduler release $$r (cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc go test $$f -run TestGenerated)" >&2; \
	    (cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc $(GO) test $(TESTFLAGS) $$f -count=1 -timeout 30m -run '^TestGenerated$$' . -generated=$$gen) || status=1; \
	  done; \
	  if ls $(RESULTS_DIR)/*.json >/dev/null 2>&1; then \
	    $(GO) run ./conformance/cmd/conformance-report -in $(RESULTS_DIR) -out $(REPORT) || status=1; \
	    echo "wrote $(REPORT) (the conformance results of $(RESULTS_DIR) and this generated run)"; \
	  else echo "generated: no conformance results in $(RESULTS_DIR) (make conformance writes them): $(REPORT) not rewritten" >&2; fi; \
	  exit $$status

# The catalogue's blocked-Pop scenarios (a Pop parked on an empty queue,
# woken by another operation), BLOCKED_POPS_COUNT times each on the
# newest three upstream releases (BLOCKED_POPS_RELEASES): the woken Pop
# runs in its own goroutine, so an outcome can differ from run to run, and
# one run per make conformance sees a rare one rarely. It keeps the
# adapter's races in view (the late delete fixed in fdfca0b, put back:
# 17 of 300 runs failed on v1.38, load ~6)
# and measures the requeue race F01 where a release has it: its
# scenario's known difference is declared intermittent, so those runs
# count as known, with their rate; any other failure fails the target.
# Older releases differ in these scenarios in every run (declared), and
# each such run waits out the runner's 10 seconds for the Pop. make
# verify runs it. BLOCKED_POPS_RUN names the scenarios;
# conformance's TestBlockedPopsCoverTheCatalogue fails when a catalogue
# scenario with a blocked Pop is not among them.
BLOCKED_POPS_COUNT ?= 100
BLOCKED_POPS_RELEASES ?= $(shell awk '!/^\#/ && NF {print $$1}' $(UPSTREAM_TABLE) | tail -3)
BLOCKED_POPS_RUN = ^Test(Classic|QueueingHints)$$/^(add|close|hints)$$/^(wakes-a-blocked-pop|unblocks-every-blocked-pop|pop)$$/^a-blocked-pop
.PHONY: conformance-blocked-pops
conformance-blocked-pops:
	@status=0; for r in $(BLOCKED_POPS_RELEASES); do $(upstream_vars); \
	  out=$$(cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc $(GO) test $$f -count=$(BLOCKED_POPS_COUNT) -timeout 60m -run '$(BLOCKED_POPS_RUN)' -v . 2>&1) || { status=1; echo "$$out" | grep -v '^=== \|^    --- PASS\|^--- PASS' | tail -60; }; \
	  echo "$$out" | awk -v n=$(BLOCKED_POPS_COUNT) -v r=$$r 'match($$0, /upstream-v[^:]*: preflight/) { t = substr($$0, RSTART, RLENGTH - 11); sub(/-queueinghints$$/, "", t) } \
	    match($$0, /[0-9]+ pass, [0-9]+ fail, [0-9]+ known/) { split(substr($$0, RSTART, RLENGTH), a, " "); p += a[1]; f += a[3]; k += a[5] } \
	    END { printf "blocked-pops: %s: %d scenario runs (each %d times): %d pass, %d known (%.0f%%), %d fail\n", (t == "" ? "release " r : t), p + f + k, n, p, k, (p + f + k ? 100 * k / (p + f + k) : 0), f }'; \
	done; exit $$status

# Which layer catches each rule's mutants, and how often (docs/mutants.md):
# every row of the mutant table (properties/mutants_test.go) against the
# state machine, the model comparison, linearizability (each LAYERS_RUNS
# times: catch rates), the named scenarios and the generated set (once:
# the same verdict every run), at make test's sizes. LAYERS_DIR keeps
# every row's output (a new temp dir unless set), LAYERS_OUT the tables
# to paste into docs/mutants.md. make verify runs it at N=5 and compares
# with the published rates.
LAYERS_RUNS ?= 20
LAYERS_DIR ?=
LAYERS_OUT ?= $(or $(TMPDIR),/tmp)/schedq-layers.md
.PHONY: mutant-layers
mutant-layers:
	$(GO) test -count=1 -timeout 300m -run '^TestMutantLayers$$' -v ./properties/ -layers -layers.runs=$(LAYERS_RUNS) \
	  -layers.out=$(LAYERS_OUT) $(if $(LAYERS_DIR),-layers.dir=$(LAYERS_DIR))

# The findings catalogue (findings/README.md): each upstream bug's
# reproduction, a test of package queue, run in a copy of every release
# (FINDINGS_RELEASES, v1.38.0-beta.0 built with GOTOOLCHAIN=go1.27.3, the
# others with the local Go) kept under the user's cache directory
# (schedq/findings/<release>: symbolic links to the module cache but for
# the queue package, a stable path so Go's build cache stays warm); the
# table goes to findings/TABLE.md. With KUBERNETES=../kubernetes it runs a
# checkout and its base release (KUBERNETES_BASE, else git describe) and
# says which findings the checkout fixes. Not part of make test or make
# verify: a cold run compiles Kubernetes once per release, 5-10 CPU-minutes
# each; a warm one takes about a minute per release.
FINDINGS_RELEASES ?= v1.33.13,v1.34.7,v1.35.6,v1.36.5,v1.37.2,v1.38.0-beta.0
.PHONY: findings
findings:
ifeq ($(KUBERNETES),)
	$(GO) run ./findings/cmd/findings -releases '$(FINDINGS_RELEASES)' -table findings/TABLE.md
else
	$(GO) run ./findings/cmd/findings -kubernetes '$(KUBERNETES)' $(if $(KUBERNETES_BASE),-base '$(KUBERNETES_BASE)')
endif

# What a cold build of the upstream releases costs, said before the first
# Kubernetes compile; `go list` tells which releases Go's build cache lacks.
.PHONY: upstream-cost upstream-build
upstream-cost:
	@cold=; for r in $(UPSTREAM_RELEASES); do $(upstream_vars); \
	  s=$$(cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc $(GO) list $$f -f '{{.Stale}}' k8s.io/kubernetes/pkg/scheduler/backend/queue 2>/dev/null); \
	  [ "$$s" = false ] || cold="$$cold $$r"; done; \
	  if [ -n "$$cold" ]; then n=$$(echo $$cold | wc -w); \
	    echo "upstream: releases not in Go's build cache:$$cold. A cold build of Kubernetes costs about 8 CPU-minutes per release (measured on a 2-core VM: about 4-5 minutes of wall clock when idle, 15-20 when shared), about $$((n * 8)) CPU-minutes for these $$n; a cached release starts in seconds." >&2; \
	  else echo "upstream: every release ($(UPSTREAM_RELEASES)) is in Go's build cache." >&2; fi

# Compile every release's tests once (go test vets with its default
# analyzers), for make verify's timing; the conformance step then reuses
# the build cache.
upstream-build: upstream-cost
	@for r in $(UPSTREAM_RELEASES); do $(upstream_vars); \
	  echo "cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc $(GO) test $$f -count=1 -run '^$$' ." >&2; \
	  (cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc $(GO) test $$f -count=1 -run '^$$' .) || exit 1; done

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

# schedq against the upstream queues on the same workloads
# (internal/workload), side by side in one invocation per release, then one
# table: workload, schedq, upstream, ratio, CPU time per pod first.
# BENCH_RELEASES are the releases measured (v1.33 in classic mode, later
# ones with their default gates). Each release's test binary is built once;
# then BENCHCOUNT rounds, each running every release's benchmarks once
# (-count 1) in turn, so that a slow spell of the shared machine falls on
# both queues of a round and every release alike: the table shows the
# median ratio and the smallest ratio of one round. BENCH selects the
# benchmarks (a -bench regexp); the raw outputs are kept in BENCH_DIR (a
# new temp dir unless set) for benchstat.
BENCHCOUNT ?= 5
BENCH ?= .
BENCH_DIR ?=
BENCH_RELEASES ?= 133 137
# $(bench_rounds) builds $$dir/$$v.test for each release in $$rels (with
# $$bench its -bench regexp) and runs BENCHCOUNT interleaved rounds into
# $$dir/$$v.txt; $$args becomes benchtable's label=file list.
bench_rounds = args=; for r in $$rels; do $(upstream_vars); v=v$$r; \
	    echo "$(UPSTREAM_DIR) ($$v): GOTOOLCHAIN=$$tc go test $$f -c -o $$dir/$$v.test" >&2; \
	    (cd $(UPSTREAM_DIR) && GOTOOLCHAIN=$$tc $(GO) test $$f -c -o $$dir/$$v.test) || exit 1; : > $$dir/$$v.txt; \
	    args="$$args $$(echo $$v | sed 's/^v1/v1./')=$$dir/$$v.txt"; \
	  done; \
	  for i in $$(seq $(BENCHCOUNT)); do for r in $$rels; do v=v$$r; \
	    echo "round $$i of $(BENCHCOUNT), $$v: -test.bench '$$bench' -test.count 1 >> $$dir/$$v.txt (load $$(cut -d' ' -f1-3 /proc/loadavg))" >&2; \
	    (cd $(UPSTREAM_DIR) && $$dir/$$v.test -test.run '^$$' -test.bench "$$bench" -test.benchmem -test.count 1 -test.timeout 0) >> $$dir/$$v.txt || { cat $$dir/$$v.txt; exit 1; }; \
	  done; done; rm -f $$dir/*.test
# bench_compare runs the workloads matching $(2) on schedq and on each
# release of $(1) in BENCHCOUNT interleaved rounds (bench_rounds), then
# benchstat's table (benchtable) and where the raw output is.
bench_compare = @dir=$${BENCH_DIR:-$$(mktemp -d)}; mkdir -p $$dir; rels="$(1)"; bench='$(2)'; \
	  $(bench_rounds); \
	  $(GO) run ./internal/workload/cmd/benchtable $$args; \
	  echo "raw output: $$dir (machine: $$(nproc) CPUs, $$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load at the end $$(cut -d' ' -f1-3 /proc/loadavg))"

bench-compare:
	$(call bench_compare,$(BENCH_RELEASES),$(BENCH))

# The pod-group workloads (conformance/upstream/podgroups_bench_test.go):
# schedq's implementation in the podgroups profile against v1.37.2 with
# GenericWorkload on, the only release with pod-group entities, in a table
# of their own (bench-compare's first release, v1.33, has none), in
# BENCHCOUNT rounds as bench-compare.
bench-compare-podgroups:
	$(call bench_compare,137,PodGroup)

# The move requests narrowed by a pre-queueing hint (workload
# NarrowedMoves): schedq's hints profile with pre-queueing hints against
# the releases whose default gates run them (v1.38.0-beta.0 on, built
# with its toolchain from releases.txt), in a table of their own, in
# BENCHCOUNT rounds as bench-compare.
PREQUEUE_RELEASES ?= 138
bench-compare-prequeue:
	$(call bench_compare,$(PREQUEUE_RELEASES),NarrowedMoves)

# The real kube-scheduler on upstream's queue and on schedq's, at
# scheduler_perf's size (realsched/, docs/realsched.md), for each of
# REALSCHED_RELEASES: v1.33.13 (realsched/go.mod, schedq's classic profile)
# v1.37.2 (go.v137.mod with tag v137, the hints profile) and v1.38.0-beta.0
# (go.v138.mod with tag v138, the hints profile with pre-queueing hints;
# built with its toolchain from releases.txt, go1.27.3), on a real
# kube-apiserver and etcd started in the test process for each run (the
# realapi build tag; REALSCHED_API= runs on the fake clientset instead).
# v1.38.0-beta.0 runs on the fake clientset only: its kube-apiserver
# imports k8s.io/apiextensions-api, which has no v0.38.0-beta.0 on the
# module proxy. REALSCHED_COUNT rounds of one run each (both queues per
# workload, interleaved, where go test -count would run each one back to
# back; upstream first in odd rounds, schedq first in even ones, after one
# unreported warm-up run; the default count is even, so the order is
# balanced): raw benchmark
# lines in REALSCHED_OUT.vNNN, then benchstat's upstream/schedq table per
# release. make test runs the bounded v1.33 suite on the fake clientset
# only (its 10-minute budget: the API server's cold build alone is longer).
.PHONY: realsched
REALSCHED_COUNT ?= 4
REALSCHED_RELEASES ?= 133 137 138
realsched_tc = tc=$$(awk -v r=$$r '!/^\#/ && $$1 == r {print $$5}' $(CURDIR)/$(UPSTREAM_TABLE))
REALSCHED_API ?= realapi
REALSCHED_FLAGS ?= -realsched.nodes=500 -realsched.pods=5000 -realsched.timeout=15m
REALSCHED_OUT ?= $(or $(TMPDIR),/tmp)/schedq-realsched.txt
realsched:
	@if [ -n "$(REALSCHED_API)" ]; then echo "realsched: on a real kube-apiserver and etcd in process (build tag $(REALSCHED_API)); a cold build of its test binary takes 8-15 minutes and about 3 GB per release"; \
	  else echo "realsched: on the fake clientset (REALSCHED_API empty)"; fi
	@for r in $(REALSCHED_RELEASES); do out=$(REALSCHED_OUT).v$$r; : > $$out; $(realsched_tc); \
	  api=$(REALSCHED_API); [ $$r = 138 ] && [ -n "$$api" ] && { echo "realsched: v$$r on the fake clientset (no apiextensions-api v0.38.0-beta.0 for its kube-apiserver)" >&2; api=; }; \
	  f="-modfile=go.v$$r.mod -tags=v$$r,$$api"; [ $$r = 133 ] && f="-tags=$$api"; \
	  echo "realsched: kube-scheduler release $$r (cd realsched && GOTOOLCHAIN=$$tc go test $$f -bench .) > $$out" >&2; \
	  start=$$(date +%s); (cd realsched && GOTOOLCHAIN=$$tc $(GO) test $$f -c -o $$out.test) || exit 1; \
	  echo "realsched: v$$r test binary built in $$(( $$(date +%s) - start )) s" >&2; \
	  for i in $$(seq $(REALSCHED_COUNT)); do first=upstream; [ $$((i % 2)) = 0 ] && first=schedq; \
	    (cd realsched && $$out.test -test.run '^$$' -test.bench . -test.benchtime 1x -test.count 1 -test.timeout 0 -realsched.first=$$first $(REALSCHED_FLAGS)) | tee -a $$out || exit 1; done; \
	  rm -f $$out.test; uptime; if command -v benchstat >/dev/null; then benchstat -col /queue $$out; else echo "benchstat not on PATH: raw lines in $$out"; fi; \
	done

# The real scheduler's correctness run for make verify: TestRealScheduler
# (every workload on upstream's queue and on schedq's, every pod bound
# once, none lost, the trace checked) for each of REALSCHED_RELEASES, at
# REALSCHED_CHECK_FLAGS' size, and TestLinkedSignatures (the go:linkname
# declarations against the release); TESTFLAGS go to go test.
REALSCHED_CHECK_FLAGS ?= -realsched.nodes=20 -realsched.pods=200
.PHONY: realsched-check
realsched-check:
	@status=0; for r in $(REALSCHED_RELEASES); do f="-modfile=go.v$$r.mod -tags v$$r"; [ $$r = 133 ] && f=; $(realsched_tc); \
	  v=$$(cd realsched && GOTOOLCHAIN=$$tc $(GO) list $$f -m -f '{{.Version}}' k8s.io/kubernetes 2>/dev/null); \
	  echo "realsched-check: kube-scheduler $${v:-release $$r} (cd realsched && GOTOOLCHAIN=$$tc go test $$f -run '^(TestRealScheduler|TestLinkedSignatures)$$' $(REALSCHED_CHECK_FLAGS))"; \
	  (cd realsched && GOTOOLCHAIN=$$tc $(GO) test $(TESTFLAGS) $$f -count=1 -timeout 60m -run '^(TestRealScheduler|TestLinkedSignatures)$$' . $(REALSCHED_CHECK_FLAGS)) || status=1; \
	done; exit $$status

fmt:
	gofmt -w $$(git ls-files '*.go')
