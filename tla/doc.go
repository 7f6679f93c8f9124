// Package tla holds the TLA+ specifications of the scheduling queue —
// SchedulingQueue.tla (the classic profile) and SchedulingQueueHints.tla
// (the queueing-hints profile), each with a timed variant, and
// SchedulingQueuePodGroups.tla (the podgroups profile's entity queue, v1.37.2's
// group rules), SchedulingQueueGroupGates.tla (v1.38's G12 and G13 over one
// gated group) and SchedulingQueueGroupNarrowing.tla (v1.38's G14, a move
// request narrowed by pre-queueing hints over parked groups) — the TLC
// configurations that check them (make tlc), and the Go test that keeps
// them in agreement with the executable model in package model:
// agreement_test.go explores the model's reachable states for the bounds of
// the Graph*.cfg configurations and compares each graph with the one TLC
// produced (testdata/<cfg>.txt.gz, make tla-graph); edges_test.go turns
// every step of a classic graph into a shortest scenario of the scenario
// language and measures how many steps the hand-written scenarios take. The contract they formalise is spec.Queue's, with the
// hints rules of spec/hints.go. See README.md.
//
// The package has no Go API; the code lives in its tests, in
// internal/stategraph (the canonical state encoding both sides share) and
// in cmd/tlagraph (the converter from TLC's dump).
package tla
