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

// named is one line of a table: a standard function and its name.
type named[F any] struct {
	name string
	fn   F
}

// standardQueueingHints are the named queueing hints, one line each.
var standardQueueingHints = []named[spec.QueueingHintFn]{
	{"FitLabelHint", FitLabelHint},
	{"GateHint", GateHint},
	{"FlakyHint", FlakyHint},
	{"NodeZoneHint", NodeZoneHint},
	{"SkipHint", SkipHint},
}

// standardPreEnqueue are the named PreEnqueue plugin functions, one line
// each.
var standardPreEnqueue = []named[spec.PreEnqueueFn]{
	{"GateAdmits", GateAdmits},
	{"HoldAdmits", HoldAdmits},
}

// standardPreQueueingHints are the named pre-queueing hints (R20), one
// line each.
var standardPreQueueingHints = []named[spec.PreQueueingHintFn]{
	{"WakesPreHint", WakesPreHint},
	{"GatePreHint", GatePreHint},
	{"FlakyPreHint", FlakyPreHint},
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

func nameOf[F any](table []named[F], fn F) (string, bool) {
	if id := funcID(fn); id != 0 {
		for _, l := range table {
			if funcID(l.fn) == id {
				return l.name, true
			}
		}
	}
	return "", false
}

func byName[F any](table []named[F], name string) (F, bool) {
	for _, l := range table {
		if l.name == name {
			return l.fn, true
		}
	}
	var none F
	return none, false
}

func names[F any](table []named[F]) []string {
	out := make([]string, 0, len(table))
	for _, l := range table {
		out = append(out, l.name)
	}
	slices.Sort(out)
	return out
}

// QueueingHintName returns the standard name of fn, or false when fn is
// none of the standard queueing hints (a closure, a test's own hint).
func QueueingHintName(fn spec.QueueingHintFn) (string, bool) {
	return nameOf(standardQueueingHints, fn)
}

// QueueingHintByName returns the standard queueing hint of that name, or
// false.
func QueueingHintByName(name string) (spec.QueueingHintFn, bool) {
	return byName(standardQueueingHints, name)
}

// PreEnqueueName returns the standard name of fn, or false when fn is none
// of the standard PreEnqueue functions.
func PreEnqueueName(fn spec.PreEnqueueFn) (string, bool) {
	return nameOf(standardPreEnqueue, fn)
}

// PreEnqueueByName returns the standard PreEnqueue function of that name,
// or false.
func PreEnqueueByName(name string) (spec.PreEnqueueFn, bool) {
	return byName(standardPreEnqueue, name)
}

// QueueingHintNames lists the names of the standard queueing hints, sorted.
func QueueingHintNames() []string { return names(standardQueueingHints) }

// PreEnqueueNames lists the names of the standard PreEnqueue functions,
// sorted.
func PreEnqueueNames() []string { return names(standardPreEnqueue) }

// PreQueueingHintName returns the standard name of fn, or false when fn is
// none of the standard pre-queueing hints.
func PreQueueingHintName(fn spec.PreQueueingHintFn) (string, bool) {
	return nameOf(standardPreQueueingHints, fn)
}

// PreQueueingHintByName returns the standard pre-queueing hint of that
// name, or false.
func PreQueueingHintByName(name string) (spec.PreQueueingHintFn, bool) {
	return byName(standardPreQueueingHints, name)
}

// PreQueueingHintNames lists the names of the standard pre-queueing hints,
// sorted.
func PreQueueingHintNames() []string { return names(standardPreQueueingHints) }
