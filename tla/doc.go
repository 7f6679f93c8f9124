// Package tla holds the TLA+ specification of the scheduling queue
// (SchedulingQueue.tla, SchedulingQueueTimed.tla), the TLC configurations
// that check it (make tlc), and the Go test that keeps it in agreement with
// the executable model in package model: agreement_test.go explores the
// model's reachable states for the bounds of Graph.cfg and
// GraphPriority.cfg and compares each graph with the one TLC produced
// (testdata/Graph.txt.gz and testdata/GraphPriority.txt.gz, make
// tla-graph). The contract both formalise is spec.Queue's.
// See README.md.
//
// The package has no Go API; the code lives in its tests, in
// internal/stategraph (the canonical state encoding both sides share) and
// in cmd/tlagraph (the converter from TLC's dump).
package tla
