// Package properties holds the property-based suites of schedq: rapid
// state-machine tests that drive the implementation (package impl) and the
// executable model (package model) with the same random operations and
// compare them after every step, focused properties of backoff, of the
// moveRequestCycle shortcut and of conservation, a test that the periodic
// flushes started by Run are wired to the clock, a native fuzz target over
// the same comparison, and a mutation check that proves the state-machine
// test catches deliberately broken variants of the implementation.
//
// Everything lives in _test.go files; this file only names the package.
//
//	go test ./properties/                                      # all, default sizes
//	go test -run TestStateMachine ./properties/ -rapid.checks=20000
//	go test -run TestMutantsAreCaught -v ./properties/         # the catch table
//	go test -run '^$' -fuzz FuzzQueue -fuzztime 60s ./properties/
//
// A failing rapid test prints the minimal sequence of operations, one
// "#n operation" line each, and names the failed check as CHECK[...].
package properties
