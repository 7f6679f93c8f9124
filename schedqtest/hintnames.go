package schedqtest

import (
	"reflect"
	"slices"

	"github.com/schedq/schedq/spec"
)

// Names of the standard hint set. Queueing hints and PreEnqueue plugins are
// Go functions, which cannot leave the process; their names can. A queue
// checked from another process (package conformance/remote) implements the
// few standard functions itself, and the config it receives names them.
// The names are the Go identifiers, so that a failure, a scenario and the
// protocol documentation say the same word.
//
// To add a standard function, write it (hints.go) and add one line to the
// table of its kind below; TestHintNamesCoverHintsConfig fails until every
// function HintsConfig uses has a line.

// standardQueueingHints are the named queueing hints, one line each.
var standardQueueingHints = []struct {
	name string
	fn   spec.QueueingHintFn
}{
	{"FitLabelHint", FitLabelHint},
	{"GateHint", GateHint},
	{"FlakyHint", FlakyHint},
}

// standardPreEnqueue are the named PreEnqueue plugin functions, one line
// each.
var standardPreEnqueue = []struct {
	name string
	fn   spec.PreEnqueueFn
}{
	{"GateAdmits", GateAdmits},
	{"HoldAdmits", HoldAdmits},
}

// funcID identifies a function value by its code pointer: the standard
// functions are top-level functions, each with a pointer of its own. A nil
// function is 0.
func funcID(fn any) uintptr {
	v := reflect.ValueOf(fn)
	if !v.IsValid() || v.Kind() != reflect.Func || v.IsNil() {
		return 0
	}
	return v.Pointer()
}

// QueueingHintName returns the standard name of fn, or false when fn is
// none of the standard queueing hints (a closure, a test's own hint).
func QueueingHintName(fn spec.QueueingHintFn) (string, bool) {
	if id := funcID(fn); id != 0 {
		for _, h := range standardQueueingHints {
			if funcID(h.fn) == id {
				return h.name, true
			}
		}
	}
	return "", false
}

// QueueingHintByName returns the standard queueing hint of that name, or
// false.
func QueueingHintByName(name string) (spec.QueueingHintFn, bool) {
	for _, h := range standardQueueingHints {
		if h.name == name {
			return h.fn, true
		}
	}
	return nil, false
}

// PreEnqueueName returns the standard name of fn, or false when fn is none
// of the standard PreEnqueue functions.
func PreEnqueueName(fn spec.PreEnqueueFn) (string, bool) {
	if id := funcID(fn); id != 0 {
		for _, p := range standardPreEnqueue {
			if funcID(p.fn) == id {
				return p.name, true
			}
		}
	}
	return "", false
}

// PreEnqueueByName returns the standard PreEnqueue function of that name,
// or false.
func PreEnqueueByName(name string) (spec.PreEnqueueFn, bool) {
	for _, p := range standardPreEnqueue {
		if p.name == name {
			return p.fn, true
		}
	}
	return nil, false
}

// QueueingHintNames lists the names of the standard queueing hints, sorted.
func QueueingHintNames() []string {
	out := make([]string, 0, len(standardQueueingHints))
	for _, h := range standardQueueingHints {
		out = append(out, h.name)
	}
	slices.Sort(out)
	return out
}

// PreEnqueueNames lists the names of the standard PreEnqueue functions,
// sorted.
func PreEnqueueNames() []string {
	out := make([]string, 0, len(standardPreEnqueue))
	for _, p := range standardPreEnqueue {
		out = append(out, p.name)
	}
	slices.Sort(out)
	return out
}
