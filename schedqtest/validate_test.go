package schedqtest_test

import (
	"strings"
	"testing"

	"github.com/schedq/schedq/schedqtest"
)

// The parser refuses a plugin name the scenario's profile does not have
// and a hints-only argument in a classic scenario, naming the line; every
// runner (conformance, schedq run) reads scenarios through it.
func TestScenarioRefusesUnknownPluginsAndHintsOnlyArguments(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"add a\n----\n\npop\n----\n\nfail a plugins=(Fitt)\n----\n", `x:7: fail: plugins=(...) names "Fitt"`},
		{"add a\n----\n\npop\n----\n\nfail a pending=(NodeResourcesFit)\n----\n", "x:7: fail: pending= is an argument of the hints profile only"},
		{"config profile=hints\n----\n\nadd a\n----\n\npop\n----\n\nfail a plugins=(TaintToleration)\n----\n", `x:10: fail: plugins=(...) names "TaintToleration", which is not a plugin of the hints profile's scenarios`},
	} {
		if _, err := schedqtest.ParseScenario("x", tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseScenario(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
	for _, text := range []string{
		"add a\n----\n\npop\n----\n\nfail a plugins=(NodeResourcesFit,UnregisteredPlugin)\n----\n",
		"config profile=hints\n----\n\nadd a\n----\n\npop\n----\n\nfail a plugins=(Fit,Hold) pending=(Gate)\n----\n",
	} {
		if _, err := schedqtest.ParseScenario("x", text); err != nil {
			t.Errorf("ParseScenario(%q): %v", text, err)
		}
	}
}
