package schedqtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/spec"
)

func parseConfigLine(t *testing.T, line string) (ConfigChange, error) {
	t.Helper()
	_, args, err := datadriven.ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	return ParseConfig(args)
}

// buildConfigLine parses a config line that must be valid, checks that it
// prints back as written, and builds its config.
func buildConfigLine(t *testing.T, line string) spec.Config {
	t.Helper()
	c, err := parseConfigLine(t, line)
	if err != nil {
		t.Fatal(err)
	}
	if c.String() != line {
		t.Errorf("String() = %q, want the line back", c.String())
	}
	cfg := c.Build()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestDeclaredRegistry(t *testing.T) {
	line := "config profile=hints register=(P1:NodeAdd,P2:NodeAdd:skip,P2:PVAdd,G:PodLabel) preenqueue=(G:gate=true)"
	cfg := buildConfigLine(t, line)
	if len(cfg.PluginEvents) != 3 || len(cfg.PluginEvents["P2"]) != 2 || cfg.PluginEvents["G"][0] != PodLabel {
		t.Errorf("PluginEvents = %v", cfg.PluginEvents)
	}
	if len(cfg.QueueingHints) != 1 || cfg.QueueingHints[spec.HintKey{Plugin: "P2", Event: NodeAdd}] == nil {
		t.Errorf("QueueingHints = %v, want P2's NodeAdd only", cfg.QueueingHints)
	}
	if h, _ := cfg.QueueingHints[spec.HintKey{Plugin: "P2", Event: NodeAdd}](&spec.Pod{}, spec.Occurrence{}); h != spec.HintSkip {
		t.Errorf("the :skip hint answers %v", h)
	}
	// ":zone" is NodeZoneHint: QueueSkip for a pod of another zone than
	// the event's node, Queue for one of the same zone.
	zoned := buildConfigLine(t, "config profile=podgroups register=(P1:NodeAdd:zone)")
	zone := zoned.QueueingHints[spec.HintKey{Plugin: "P1", Event: NodeAdd}]
	node := spec.Occurrence{NewObject: &Node{Name: "n", Labels: map[string]string{"zone": "a"}}}
	if zone == nil {
		t.Fatalf("QueueingHints = %v, want P1's NodeAdd", zoned.QueueingHints)
	}
	if h, _ := zone(&spec.Pod{Labels: map[string]string{"zone": "b"}}, node); h != spec.HintSkip {
		t.Errorf("the :zone hint answers %v for a pod of another zone", h)
	}
	if h, _ := zone(&spec.Pod{Labels: map[string]string{"zone": "a"}}, node); h != spec.HintQueue {
		t.Errorf("the :zone hint answers %v for a pod of the node's zone", h)
	}
	gate := cfg.PreEnqueuePlugins["G"]
	if len(cfg.PreEnqueuePlugins) != 1 || gate == nil || gate(&spec.Pod{Labels: map[string]string{"gate": "true"}}) || !gate(&spec.Pod{}) {
		t.Errorf("PreEnqueuePlugins: want only G, refusing gate=true")
	}
	for _, bad := range []struct{ line, want string }{
		{"config register=(P1)", "want plugin:event"},
		{"config register=(P1:NoSuchEvent)", "unknown event"},
		{"config register=(P1:NodeAdd:skip)", "the classic profile has none"},
		{"config register=(P1:NodeAdd:zone)", "the classic profile has none"},
		{"config preenqueue=(G:gate)", "want plugin:key=value"},
		{"config gates=on preenqueue=(G:gate=true)", "write one"},
		{"config profile=hints zone-hint=on register=(P1:NodeAdd)", "declare the registrations"},
	} {
		if _, err := parseConfigLine(t, bad.line); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want one containing %q", bad.line, err, bad.want)
		}
	}
}

// add-register adds to the profile's registry and keeps its hints and
// PreEnqueue plugins; the shared HintsRegistry stays as it is.
func TestAddedRegistrations(t *testing.T) {
	line := "config profile=hints prequeue=on add-register=(Affinity:NodeAdd,Flaky:NodeLabel:skip)"
	cfg := buildConfigLine(t, line)
	if want := []spec.ClusterEvent{HintsRegistry[PluginAffinity][0], NodeAdd}; !slices.Equal(cfg.PluginEvents[PluginAffinity], want) {
		t.Errorf("Affinity registers %v, want %v", cfg.PluginEvents[PluginAffinity], want)
	}
	if len(HintsRegistry[PluginAffinity]) != 1 || len(HintsRegistry[PluginFlaky]) != 1 || len(HintsConfig().QueueingHints) != 3 {
		t.Errorf("add-register changed the shared registry or hints: %v", HintsRegistry)
	}
	if cfg.QueueingHints[spec.HintKey{Plugin: PluginFit, Event: NodeLabel}] == nil || cfg.PreEnqueuePlugins[PluginGate] == nil {
		t.Errorf("add-register dropped the profile's hints or PreEnqueue plugins")
	}
	if h, _ := cfg.QueueingHints[spec.HintKey{Plugin: PluginFlaky, Event: NodeLabel}](&spec.Pod{}, spec.Occurrence{}); h != spec.HintSkip {
		t.Errorf("the :skip hint answers %v", h)
	}
	// Fit names a; Affinity has no pre-queueing hint for NodeAdd, so the
	// request evaluates every pod (R21).
	n := cfg.PreQueueingNarrowing(spec.Occurrence{Event: NodeAdd, NewObject: &Node{Name: "n1", Labels: map[string]string{WakesLabel: "a"}}})
	if n == nil || !n.AllPods || !n.Named[PluginFit][spec.PodKey(Namespace+"/a")] {
		t.Errorf("narrowing %+v, want Fit naming ns/a beside all pods", n)
	}
	for _, bad := range []struct{ line, want string }{
		{"config profile=hints add-register=(Other:NodeAdd)", "not a registered plugin"},
		{"config profile=hints add-register=(UnregisteredPlugin:NodeAdd)", "not a registered plugin"},
		{"config add-register=(Fit:NodeAdd:skip)", "not a registered plugin"},
		{"config add-register=(NodeResourcesFit:NodeAdd:skip)", "has none"},
		{"config profile=hints register=(P1:NodeAdd) add-register=(Fit:PVAdd)", "declare every registration"},
	} {
		if _, err := parseConfigLine(t, bad.line); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want one containing %q", bad.line, err, bad.want)
		}
	}
}
