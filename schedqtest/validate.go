package schedqtest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/spec"
)

// opFromArgs is OpFromArgs checked against the scenario's profile, as far
// as its header has declared it (the config directive comes before the
// first operation): a plugin name that the profile's plugin set does not
// have (a typo such as "plugins=(Fitt)" would otherwise be a plugin that
// registered nothing, and the scenario would test something else than it
// says), and an argument only the hints profile has (pending=) in a
// classic scenario. Both used to be accepted silently.
func (sc *Scenario) opFromArgs(cmd string, args []datadriven.CmdArg) (Op, error) {
	op, err := OpFromArgs(cmd, args)
	if err != nil {
		return op, err
	}
	if declared := sc.Config.declaredPlugins(); declared != nil {
		return op, checkOpPlugins(op, sc.Config.Profile, declared)
	}
	return op, checkOpForProfile(op, sc.Config.Profile)
}

// ProfilePlugins returns the plugin names a scenario of profile p may
// name: the plugins of its registry, UnregisteredPlugin (registered for
// nothing) and, in the hints profile, the PreEnqueue plugins.
func ProfilePlugins(p spec.Profile) []string {
	if p.HasHints() {
		return slices.Concat(HintsPlugins, []string{PluginHold})
	}
	return Plugins
}

func checkOpForProfile(op Op, p spec.Profile) error {
	if p != spec.ProfilePodGroups && op.IsPodGroupOp() {
		return fmt.Errorf("%s: pod groups (group=, podgroup-*, attempted) are of the podgroups profile only (G1-G11); add \"config profile=podgroups\" before the first operation", op.Kind)
	}
	if !p.HasHints() && op.Pending != nil {
		return fmt.Errorf("%s: pending= is an argument of the hints profile only (R3h); this scenario is classic: add \"config profile=hints\" before the first operation, or drop pending=", op.Kind)
	}
	return checkOpPlugins(op, p, ProfilePlugins(p))
}

func checkOpPlugins(op Op, p spec.Profile, known []string) error {
	if p != spec.ProfileHints && op.Pending != nil {
		return fmt.Errorf("%s: pending= is an argument of the hints profile only (R3h); this scenario is classic: add \"config profile=hints\" before the first operation, or drop pending=", op.Kind)
	}
	for _, arg := range []struct {
		key   string
		names []string
	}{{"plugins", op.Plugins}, {"pending", op.Pending}} {
		for _, n := range arg.names {
			if !slices.Contains(known, n) {
				return fmt.Errorf("%s: %s=(...) names %q, which is not a plugin of the %s profile's scenarios; the plugins are %s",
					op.Kind, arg.key, n, p, strings.Join(known, ", "))
			}
		}
	}
	return nil
}
