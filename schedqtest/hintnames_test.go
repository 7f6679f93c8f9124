package schedqtest_test

import (
	"slices"
	"testing"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Every function of the standard hint set has a name, so that a queue in
// another process can be given HintsConfig. A function added to
// HintsConfig without a line in hintnames.go fails here, naming it.
func TestHintNamesCoverHintsConfig(t *testing.T) {
	cfg := schedqtest.HintsConfig()
	if len(cfg.QueueingHints) == 0 || len(cfg.PreEnqueuePlugins) == 0 {
		t.Fatalf("HintsConfig has %d hints and %d PreEnqueue plugins; the test needs some of each", len(cfg.QueueingHints), len(cfg.PreEnqueuePlugins))
	}
	for k, fn := range cfg.QueueingHints {
		name, ok := schedqtest.QueueingHintName(fn)
		if !ok {
			t.Errorf("the queueing hint of %s for %s in HintsConfig has no standard name; add a line to standardQueueingHints", k.Plugin, k.Event)
			continue
		}
		back, ok := schedqtest.QueueingHintByName(name)
		if !ok || !sameHint(back, fn) {
			t.Errorf("QueueingHintByName(%q) does not return the hint named so", name)
		}
	}
	for plugin, fn := range cfg.PreEnqueuePlugins {
		name, ok := schedqtest.PreEnqueueName(fn)
		if !ok {
			t.Errorf("the PreEnqueue plugin %s in HintsConfig has no standard name; add a line to standardPreEnqueue", plugin)
			continue
		}
		back, ok := schedqtest.PreEnqueueByName(name)
		if !ok || !samePreEnqueue(back, fn) {
			t.Errorf("PreEnqueueByName(%q) does not return the function named so", name)
		}
	}
}

// Names are unique, each name finds a function whose name is that name,
// and functions outside the table have none.
func TestHintNamesAreOneToOne(t *testing.T) {
	hints := schedqtest.QueueingHintNames()
	if len(hints) == 0 || len(slices.Compact(slices.Clone(hints))) != len(hints) {
		t.Fatalf("QueueingHintNames() = %v: empty or with a duplicate", hints)
	}
	for _, n := range hints {
		fn, ok := schedqtest.QueueingHintByName(n)
		if !ok {
			t.Fatalf("QueueingHintByName(%q): not found", n)
		}
		if got, _ := schedqtest.QueueingHintName(fn); got != n {
			t.Errorf("QueueingHintName(QueueingHintByName(%q)) = %q", n, got)
		}
	}
	pre := schedqtest.PreEnqueueNames()
	if len(pre) == 0 || len(slices.Compact(slices.Clone(pre))) != len(pre) {
		t.Fatalf("PreEnqueueNames() = %v: empty or with a duplicate", pre)
	}
	for _, n := range pre {
		fn, ok := schedqtest.PreEnqueueByName(n)
		if !ok {
			t.Fatalf("PreEnqueueByName(%q): not found", n)
		}
		if got, _ := schedqtest.PreEnqueueName(fn); got != n {
			t.Errorf("PreEnqueueName(PreEnqueueByName(%q)) = %q", n, got)
		}
	}

	other := func(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) { return spec.HintQueue, nil }
	if n, ok := schedqtest.QueueingHintName(other); ok {
		t.Errorf("a hint outside the standard set is named %q", n)
	}
	if n, ok := schedqtest.QueueingHintName(nil); ok {
		t.Errorf("a nil hint is named %q", n)
	}
	if n, ok := schedqtest.PreEnqueueName(func(*spec.Pod) bool { return true }); ok {
		t.Errorf("a PreEnqueue function outside the standard set is named %q", n)
	}
	if _, ok := schedqtest.QueueingHintByName("NoSuchHint"); ok {
		t.Error("QueueingHintByName found a hint that does not exist")
	}
	if _, ok := schedqtest.PreEnqueueByName("NoSuchPlugin"); ok {
		t.Error("PreEnqueueByName found a function that does not exist")
	}
}

// sameHint compares two hints by their answers on a few pods and events:
// functions have no equality in Go.
func sameHint(a, b spec.QueueingHintFn) bool {
	for _, labels := range []map[string]string{nil, {"fit": "label"}, {"gated": "yes"}} {
		p := &spec.Pod{Namespace: "ns", Name: "a", UID: "u", Labels: labels}
		for _, occ := range []spec.Occurrence{{Event: schedqtest.PodLabel, New: p}, {Event: schedqtest.NodeLabel},
			{Event: schedqtest.PodLabel, New: &spec.Pod{Namespace: "ns", Name: "a", UID: "u"}}} {
			ha, ea := a(p, occ)
			hb, eb := b(p, occ)
			if ha != hb || (ea == nil) != (eb == nil) {
				return false
			}
		}
	}
	return true
}

func samePreEnqueue(a, b spec.PreEnqueueFn) bool {
	for _, labels := range []map[string]string{nil, {"gated": "yes"}, {"hold": "yes"}} {
		p := &spec.Pod{Namespace: "ns", Name: "a", UID: "u", Labels: labels}
		if a(p) != b(p) {
			return false
		}
	}
	return true
}

// Every standard pre-queueing hint "prequeue=on" gives has a name that
// finds it again, and a function outside the table has none; the declared
// PreEnqueue plugins of the standard labels are the named functions.
func TestPreQueueingHintNames(t *testing.T) {
	for k, fn := range schedqtest.StandardPreQueueingHints() {
		name, ok := schedqtest.PreQueueingHintName(fn)
		if !ok {
			t.Errorf("the pre-queueing hint of %s for %s has no standard name; add a line to standardPreQueueingHints", k.Plugin, k.Event)
			continue
		}
		if back, ok := schedqtest.PreQueueingHintByName(name); !ok || !slices.Contains(schedqtest.PreQueueingHintNames(), name) {
			t.Errorf("PreQueueingHintByName(%q) = %v, %v", name, back != nil, ok)
		}
	}
	if n, ok := schedqtest.PreQueueingHintName(func(spec.Occurrence) (spec.PreQueueingResult, error) { return spec.AllPods, nil }); ok {
		t.Errorf("a pre-queueing hint outside the standard set is named %q", n)
	}
	cfg := schedqtest.ConfigChange{Profile: spec.ProfileHints, Register: "Fit:NodeAdd", PreEnqueue: "Fit:gated=yes,Hold:hold=yes,Other:x=y"}.Build()
	for plugin, want := range map[string]string{"Fit": "GateAdmits", "Hold": "HoldAdmits", "Other": ""} {
		if got, _ := schedqtest.PreEnqueueName(cfg.PreEnqueuePlugins[plugin]); got != want {
			t.Errorf("the declared PreEnqueue plugin %s is named %q, want %q", plugin, got, want)
		}
	}
}
