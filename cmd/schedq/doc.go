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
// replays each file against the model, the executable specification, in
// the profile the file's config directive names (classic unless "config
// profile=hints" or "config profile=podgroups"; "prequeue=on" in a hints
// file selects v1.38's pre-queueing hints; the output names it), and prints after every step the
// step number, the file line, the operation, its result and the queues
// (activeQ, backoffQ, unschedulablePods, in flight, with nanosecond times
// and each backoffQ pod's expiry; in the hints profile the in-flight list
// too). After every step it checks the profile's invariants (spec.CheckStep:
// I1-I6 in the classic profile; I1, I2h-I5h, I6 and I7 in the hints
// profile, and I8 with pre-queueing hints) and names any that broke; if the file states expected outputs,
// they must be what the model prints. A plugin name the profile does not
// have, or a hints-only argument (pending=) in a classic file, is refused
// with the file and line.
//
//	schedq run --rewrite FILE...
//
// writes what the model prints after each operation into the file as its
// expected output, keeping every other line, then replays the file as
// written: how a new scenario gets its expectations, and how a file whose
// expectations a model change made stale is brought up to date (review the
// diff). The catalogue's own files are rewritten by go test ./conformance/
// -run TestModel -rewrite, to the same text.
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
// script, no external resource): the profile, a timeline with one row per
// pod coloured by place over the steps, backoff expiries marked by the
// profile's rule (R7, R7h), move requests marked, the cycle counters and,
// in the hints profile, the length of the in-flight list (its entries on
// hover), and the operation list with the state after each step.
//
// The exit status is 0 if everything held, 1 if an invariant broke, model
// and implementation disagreed or an expected output is stale, and 2 for a
// bad command line or a scenario that cannot be read or played.
//
// Install it from a clone with
//
//	go install ./cmd/schedq
package main
