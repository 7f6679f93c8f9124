package impl

import (
	"maps"
	"slices"
	"testing"

	"github.com/schedq/schedq/spec"
)

// TestNarrowedAgreesWithSpec checks impl's narrowing (one narrowed,
// refilled by every request) against spec.Config.PreQueueingNarrowing over
// a sequence of requests on one queue's hints: candidates, R22's Asks for
// every plugin and key, and AllPods. The sequence reuses the slots of
// earlier requests with fewer plugins and fewer keys, repeats keys within
// and across a plugin's registrations, and ends with a burst past
// maxKeptKeys, so that a slot that keeps a previous request's keys, a
// merge that repeats a key or a lost burst trim fails it.
func TestNarrowedAgreesWithSpec(t *testing.T) {
	nodeAdd := spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}
	nodeAny := spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.All}
	answers := map[spec.HintKey]spec.PreQueueingResult{}
	hint := func(k spec.HintKey) spec.PreQueueingHintFn {
		return func(spec.Occurrence) (spec.PreQueueingResult, error) { return answers[k], nil }
	}
	cfg := spec.DefaultHintsConfig(spec.PluginEvents{"A": {nodeAdd, nodeAny}, "B": {nodeAdd}, "C": {nodeAdd}})
	cfg.PreQueueing = true
	cfg.PreQueueingHints = spec.PreQueueingHints{}
	aAdd, aAny := spec.HintKey{Plugin: "A", Event: nodeAdd}, spec.HintKey{Plugin: "A", Event: nodeAny}
	bAdd, cAdd := spec.HintKey{Plugin: "B", Event: nodeAdd}, spec.HintKey{Plugin: "C", Event: nodeAdd}
	for _, k := range []spec.HintKey{aAdd, aAny, bAdd, cAdd} {
		cfg.PreQueueingHints[k] = hint(k)
	}
	h := newHints(&cfg)
	// A node update is A's alone (its nodeAny registration): the requests
	// where one plugin narrows.
	nodeUpdate := spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeLabel}
	named := func(keys ...spec.PodKey) spec.PreQueueingResult { return spec.PodsNamed(keys...) }
	var burst []spec.PodKey
	for i := range maxKeptKeys + 10 {
		burst = append(burst, spec.PodKey("ns/p"+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676))))
	}
	requests := []map[spec.HintKey]spec.PreQueueingResult{
		{aAny: named("ns/b", "ns/e", "ns/b")},
		{aAdd: named("ns/c", "ns/a", "ns/c"), aAny: named("ns/b"), bAdd: named("ns/a", "ns/d"), cAdd: named("ns/e")},
		{aAdd: named("ns/x"), aAny: named(), bAdd: spec.AllPods, cAdd: named("ns/x")},
		{aAdd: named(), aAny: spec.AllPods, bAdd: named("ns/y"), cAdd: named()},
		{aAdd: named("ns/z"), aAny: named("ns/z"), bAdd: named("ns/z"), cAdd: named("ns/z")},
		{aAdd: named(burst...), aAny: named(), bAdd: named(), cAdd: named()},
		{aAdd: named("ns/a"), aAny: named(), bAdd: named(), cAdd: named()},
		{aAny: named("ns/c", "ns/a", "ns/c")},
	}
	every := []spec.PodKey{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e", "ns/x", "ns/y", "ns/z", burst[0], burst[len(burst)-1]}
	for i, r := range requests {
		maps.Copy(answers, r)
		occ := spec.Occurrence{Event: nodeAdd, NewObject: "node"}
		if len(r) == 1 {
			occ.Event = nodeUpdate
		}
		want := cfg.PreQueueingNarrowing(occ)
		got := h.narrowing(occ)
		if got.AllPods != want.AllPods {
			t.Fatalf("request %d: AllPods %v, the spec's %v", i, got.AllPods, want.AllPods)
		}
		if !want.AllPods && !slices.Equal(got.Candidates(), want.Candidates()) {
			t.Fatalf("request %d: candidates %v, the spec's %v", i, got.Candidates(), want.Candidates())
		}
		for _, plugin := range []string{"A", "B", "C", "D"} {
			for _, k := range every {
				if got.Asks(plugin, k) != want.Asks(plugin, k) {
					t.Fatalf("request %d: Asks(%s, %s) = %v, the spec's %v (narrowing %v)", i, plugin, k, got.Asks(plugin, k), want.Asks(plugin, k), want)
				}
			}
		}
		got.trim()
		for _, s := range got.Named[:cap(got.Named)] {
			if cap(s.keys) > maxKeptKeys {
				t.Fatalf("request %d: a slot keeps room for %d keys after the request, want at most %d", i, cap(s.keys), maxKeptKeys)
			}
		}
	}
}
