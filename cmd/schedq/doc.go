// Command schedq replays scheduling-queue scenarios and draws them.
//
// A scenario is a text file in the language of package schedqtest: one
// operation a line (add, pop, fail, move, tick, flush-backoff, ...), each
// followed by "----" and the state the model prints after it. The
// conformance catalogue (conformance/testdata/scenarios/) and the
// regressions that failing random runs print are such files.
//
//	schedq run FILE...
//
// replays each file against the model, the executable specification, and
// prints after every step the step number, the file line, the operation, its
// result and the queues (activeQ, backoffQ, unschedulablePods, in flight,
// with nanosecond times and each backoffQ pod's expiry). After every step it
// checks the invariants I1-I6 (spec.CheckStep) and names any that broke; if
// the file states expected outputs, they must be what the model prints.
//
//	schedq run --impl FILE...
//
// replays the same operations against the implementation (package impl on a
// fake clock) as well, step by step beside the model: results, states and
// the implementation's own invariants are compared and every difference is
// shown as "model: X / impl: Y". Once the two differ, the later steps replay
// the model only. A known difference the file declares for profile
// schedq-impl is reported as known, and fails as stale when it does not
// show, as in package conformance.
//
//	schedq run --html OUT FILE
//
// also writes OUT, one self-contained HTML page (inline CSS and SVG, no
// script, no external resource): a timeline with one row per pod coloured by
// place over the steps, backoff expiries and move requests marked, and the
// operation list with the state after each step.
//
// The exit status is 0 if everything held, 1 if an invariant broke, model
// and implementation disagreed or an expected output is stale, and 2 for a
// bad command line or a scenario that cannot be read or played.
//
// Install it from a clone with
//
//	go install ./cmd/schedq
package main
