// Package properties holds the property-based suites of schedq: a rapid
// state machine that drives the implementation (package impl) and the
// executable model (package model) with the same random operations of the
// scenario language (package schedqtest) and compares them after every
// step; focused properties of backoff, of the moveRequestCycle shortcut and
// of conservation; a test that the periodic flushes started by Run are
// wired to the clock; a native fuzz target over the same comparison; and a
// mutation check that proves the state machine catches deliberately broken
// variants of the implementation.
//
// Everything lives in _test.go files; this file only names the package.
// The random runs are split by job:
//
//	generate_test.go  the pair as the Runner of schedqtest.Generator, the one generator of
//	                  random operations (schedqtest.Drawings, swarm-drawn per sequence)
//	pair_test.go      each operation on the queue under test and on the model,
//	                  stepped and compared by schedqtest.Stepper, each check named CHECK[...]
//	report_test.go    a failure as a scenario file; TestRegressions replays saved ones
//	subject_test.go   the queue under test: the implementation or a broken variant
//
// Commands:
//
//	go test ./properties/                                      # all, default sizes
//	go test -run TestStateMachine ./properties/ -rapid.checks=20000
//	go test -run TestMutantsAreCaught -v ./properties/         # the catch table
//	go test -run '^$' -fuzz FuzzQueue -fuzztime 60s ./properties/
//	SCHEDQ_BOUNDARY_SEEDS=20 go test -run TestBoundaryMutantsAtCICount -v ./properties/
//
// # Both profiles, and the nominator
//
// TestStateMachineHints runs the same generator in the queueing-hints
// profile, with the standard hint set of schedqtest.HintsConfig: pods are
// added and updated with the labels its hints and PreEnqueue plugins read
// (so they are gated and ungated, R17), fail with its plugins as rejecting
// and pending plugins (R3h), and meet the events its hints answer with
// Queue, QueueSkip or an error (R16); NodeAdd carries a node object half
// the time, which Fit's zone hint reads (zone-hint=on, R19), and updates
// carry a caller's verdict now and then (spec.PodChange). The classic runs
// draw gates=on too (schedqtest.ClassicGates, R17's classic text), with the
// labels its plugins refuse. In both profiles pods are nominated
// to nodes, to none, or by their own NominatedNodeName, and after every
// step the pods nominated to each node are compared with the model's
// (R18). TestStateMachinePodGroups runs it in the podgroups profile.
// Each sequence first draws its swarm (schedqtest.Drawing.Swarm): which
// operations, events, plugins, labels, update changes and clock steps it
// may use, and with what weights. The catch table of TestMutantsAreCaught is the one mutant table
// of schedq: the mutants of both profiles and of the nominator, each a
// patch of a file of impl/ (impl's own tests import no mutants, and impl
// imports the model in no file but tests).
//
// # Failures are scenarios
//
// A failing run (rapid's shrunk sequence, or a fuzz input) names the
// check that failed as CHECK[...] and prints its operations as a scenario
// file, with the model's expected output after every step:
//
//	--- scenario (save as properties/testdata/scenarios/regressions/<name>.txt) ---
//	# Found by properties TestStateMachine on impl: CHECK[snapshot diff] at step 4 (delete d).
//	...
//	--- end of scenario ---
//
// Saved there, TestRegressions replays it on the implementation through
// the conformance runner, which fails at the same step until the queue is
// fixed; saved under conformance/testdata/scenarios it runs against every
// conformance target. TestFailuresReplayAsScenarios shows this round trip
// for a broken queue, from rapid and from the fuzz corpus.
//
// # Boundaries
//
// Most clock steps land on a boundary of internal/boundary (a backoff
// expiry or a leftover limit, exactly or 1 ns either side), followed by
// what makes it show: a flush, or a wildcard move. The mutants that get a
// boundary wrong by one comparison are caught at the check count of make
// test (rapid's default, 100 checks). Measured with
// TestBoundaryMutantsAtCICount, rapid.seed 1 to 50, 2026-11-23; "before"
// is the generator this one replaced (a tick in 13 operations, a third of
// them aimed at an expiry or limit, then sometimes a flush), seeds 1 to 20:
//
//	mutant                             checks  caught          before
//	backoff-flush-releases-at-expiry   100     50 of 50 runs   20 of 20   R5: expiry == now released
//	requeue-at-expiry-skips-backoffQ   100     49 of 50 runs    4 of 20   R4: expiry == now sent to activeQ
//	leftover-age-inclusive             100     50 of 50 runs   15 of 20   R6: >= instead of >
//
// The fuzz target's seed corpus, which make test runs, catches each of
// them too (on 8, 3 and 6 of its 32 seeds). These figures predate the
// classic runs' gates=on config (2026-11-25), which takes a fifth of the
// classic draws.
package properties
