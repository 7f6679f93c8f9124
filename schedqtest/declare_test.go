package schedqtest

import (
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

func TestDeclaredRegistry(t *testing.T) {
	line := "config profile=hints register=(P1:NodeAdd,P2:NodeAdd:skip,P2:PVAdd,G:PodLabel) preenqueue=(G:gate=true)"
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
	if len(cfg.PluginEvents) != 3 || len(cfg.PluginEvents["P2"]) != 2 || cfg.PluginEvents["G"][0] != PodLabel {
		t.Errorf("PluginEvents = %v", cfg.PluginEvents)
	}
	if len(cfg.QueueingHints) != 1 || cfg.QueueingHints[spec.HintKey{Plugin: "P2", Event: NodeAdd}] == nil {
		t.Errorf("QueueingHints = %v, want P2's NodeAdd only", cfg.QueueingHints)
	}
	if h, _ := cfg.QueueingHints[spec.HintKey{Plugin: "P2", Event: NodeAdd}](&spec.Pod{}, spec.Occurrence{}); h != spec.HintSkip {
		t.Errorf("the :skip hint answers %v", h)
	}
	gate := cfg.PreEnqueuePlugins["G"]
	if len(cfg.PreEnqueuePlugins) != 1 || gate == nil || gate(&spec.Pod{Labels: map[string]string{"gate": "true"}}) || !gate(&spec.Pod{}) {
		t.Errorf("PreEnqueuePlugins: want only G, refusing gate=true")
	}
	for _, bad := range []struct{ line, want string }{
		{"config register=(P1)", "want plugin:event"},
		{"config register=(P1:NoSuchEvent)", "unknown event"},
		{"config register=(P1:NodeAdd:skip)", "classic profile has no queueing hints"},
		{"config preenqueue=(G:gate)", "want plugin:key=value"},
		{"config gates=on preenqueue=(G:gate=true)", "write one"},
		{"config profile=hints zone-hint=on register=(P1:NodeAdd)", "declare the registrations"},
	} {
		if _, err := parseConfigLine(t, bad.line); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want one containing %q", bad.line, err, bad.want)
		}
	}
}
