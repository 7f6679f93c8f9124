package schedqtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/spec"
)

// A scenario may declare its own plugins instead of the standard ones of
// its profile (Registry, HintsConfig), so that a bound of the TLA+ specs,
// whose plugins register other events and answer other hints, can be
// written in the language (tla/edges_test.go):
//
//	config profile=hints register=(P1:NodeAdd,P2:NodeAdd:skip,P2:PVAdd,G:PodLabel) preenqueue=(G:gate=true)
//
// register= lists registrations plugin:event, with the event as the
// language names it (ParseEvent); ":skip" makes the registration's
// queueing hint answer QueueSkip (SkipHint), ":zone" makes it
// NodeZoneHint (which reads the event's node object), and without either
// the registration has no hint, which answers Queue (R16). The declaration
// replaces the profile's registry, its hints and its PreEnqueue plugins:
// the scenario's plugins are exactly those declared. preenqueue= lists
// PreEnqueue plugins plugin:key=value, each refusing the pods labelled
// key=value (R17); given alone it replaces only the PreEnqueue plugins.
// Hints are constant answers here, as in the specs, but for ":zone": a
// hint reading the pod or the event's objects is one of the standard
// set's Go functions, and ":zone" names the one that linearizability's
// workloads run with, so that their failing histories print as scenarios
// that replay under the registry they ran on.
//
// add-register= lists registrations in the same form that the profile's
// own plugins (ProfilePlugins) add to its registry, which keeps its hints
// and PreEnqueue plugins: a second plugin on an event a standard plugin
// registers, so that one move asks two plugins (with prequeue=on, one may
// name pods while the other narrows nothing: R21, R22).
//
//	config profile=hints prequeue=on add-register=(Affinity:NodeAdd)

// SkipHint is the hint of a declared registration ":skip": always QueueSkip.
func SkipHint(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) { return spec.HintSkip, nil }

// declaration is one parsed element of register= or preenqueue=.
type declaration struct {
	plugin string
	event  spec.ClusterEvent // register=
	hint   string            // register=: "", "skip" or "zone"
	label  [2]string         // preenqueue=, key and value
}

// parseDeclared reads the values of register= or preenqueue= and returns
// them in their canonical spelling (ConfigChange.Register, .PreEnqueue).
func parseDeclared(a datadriven.CmdArg) (string, error) {
	if len(a.Vals) == 0 {
		return "", fmt.Errorf("config: %s=(...) declares nothing", a.Key)
	}
	var out []string
	for _, v := range a.Vals {
		d, err := parseDeclaration(a.Key, strings.TrimSpace(v))
		if err != nil {
			return "", fmt.Errorf("config: %w", err)
		}
		out = append(out, d.String(a.Key))
	}
	return strings.Join(out, ","), nil
}

func parseDeclaration(key, v string) (declaration, error) {
	plugin, rest, ok := strings.Cut(v, ":")
	if !ok || plugin == "" || rest == "" || strings.ContainsAny(plugin, " =") {
		if key == "register" {
			return declaration{}, fmt.Errorf("register: %q: want plugin:event, plugin:event:skip or plugin:event:zone", v)
		}
		return declaration{}, fmt.Errorf("preenqueue: %q: want plugin:key=value", v)
	}
	d := declaration{plugin: plugin}
	if key == "preenqueue" {
		k, val, ok := strings.Cut(rest, "=")
		if !ok || k == "" {
			return d, fmt.Errorf("preenqueue: %q: want plugin:key=value (the label the plugin refuses)", v)
		}
		d.label = [2]string{k, val}
		return d, nil
	}
	for _, h := range []string{"skip", "zone"} {
		if ev, ok := strings.CutSuffix(rest, ":"+h); ok {
			rest, d.hint = ev, h
		}
	}
	e, err := ParseEvent(rest)
	if err != nil {
		return d, fmt.Errorf("register: %q: %w", v, err)
	}
	d.event = e
	return d, nil
}

func (d declaration) String(key string) string {
	if key == "preenqueue" {
		return d.plugin + ":" + d.label[0] + "=" + d.label[1]
	}
	s := d.plugin + ":" + EventName(d.event)
	if d.hint != "" {
		s += ":" + d.hint
	}
	return s
}

func declarations(key, canonical string) []declaration {
	var out []declaration
	for _, v := range strings.Split(canonical, ",") {
		if d, err := parseDeclaration(key, v); err == nil { // canonical: parsed before
			out = append(out, d)
		}
	}
	return out
}

// checkDeclared rejects declarations the profile cannot take.
func (c ConfigChange) checkDeclared() error {
	for _, d := range declarations("register", c.Register) {
		if d.hint != "" && !c.Profile.HasHints() {
			return fmt.Errorf("config: register=(...:%s) is for a profile with queueing hints; the %v profile has none", d.hint, c.Profile)
		}
	}
	if c.Register != "" && c.ZoneHint {
		return fmt.Errorf("config: zone-hint=on adds a hint to the standard registry, which register=(...) replaces: declare the registrations instead")
	}
	if c.AddRegister != "" && c.Register != "" {
		return fmt.Errorf("config: register=(...) replaces the registry that add-register=(...) adds to: declare every registration in register=(...)")
	}
	for _, d := range declarations("register", c.AddRegister) {
		known := slices.DeleteFunc(slices.Clone(ProfilePlugins(c.Profile)), func(n string) bool { return n == "UnregisteredPlugin" })
		if !slices.Contains(known, d.plugin) {
			return fmt.Errorf("config: add-register=(%s): %q is not a registered plugin of the %v profile (%s)", c.AddRegister, d.plugin, c.Profile, strings.Join(known, ", "))
		}
		if d.hint != "" && !c.Profile.HasHints() {
			return fmt.Errorf("config: add-register=(...:%s) is for a profile with queueing hints; the %v profile has none", d.hint, c.Profile)
		}
	}
	if c.PreEnqueue != "" && c.Gates {
		return fmt.Errorf("config: gates=on and preenqueue=(...) both set the PreEnqueue plugins: write one")
	}
	return nil
}

// applyDeclared replaces the registry, hints and PreEnqueue plugins of cfg
// by the declared ones, and adds the added registrations (copying the
// maps, which may be the profile's shared ones).
func (c ConfigChange) applyDeclared(cfg spec.Config) spec.Config {
	if c.AddRegister != "" {
		regs := spec.PluginEvents{}
		for pl, evs := range cfg.PluginEvents {
			regs[pl] = slices.Clone(evs)
		}
		cfg.PluginEvents, cfg.QueueingHints = regs, maps.Clone(cfg.QueueingHints)
		for _, d := range declarations("register", c.AddRegister) {
			regs[d.plugin] = append(regs[d.plugin], d.event)
			cfg.QueueingHints = d.addHint(cfg.QueueingHints)
		}
	}
	if c.Register != "" {
		cfg.PluginEvents = spec.PluginEvents{}
		cfg.QueueingHints = nil
		cfg.PreEnqueuePlugins = nil
		for _, d := range declarations("register", c.Register) {
			cfg.PluginEvents[d.plugin] = append(cfg.PluginEvents[d.plugin], d.event)
			cfg.QueueingHints = d.addHint(cfg.QueueingHints)
		}
	}
	if c.PreEnqueue != "" {
		cfg.PreEnqueuePlugins = spec.PreEnqueuePlugins{}
		for _, d := range declarations("preenqueue", c.PreEnqueue) {
			cfg.PreEnqueuePlugins[d.plugin] = d.admits()
		}
	}
	return cfg
}

// declaredWords are the config line's words for the declarations.
func (c ConfigChange) declaredWords() []string {
	var w []string
	if c.Register != "" {
		w = append(w, "register=("+c.Register+")")
	}
	if c.AddRegister != "" {
		w = append(w, "add-register=("+c.AddRegister+")")
	}
	if c.PreEnqueue != "" {
		w = append(w, "preenqueue=("+c.PreEnqueue+")")
	}
	return w
}

// declaredPlugins are the plugin names a scenario with a declared registry
// may name: the declared plugins and UnregisteredPlugin; nil without one.
func (c ConfigChange) declaredPlugins() []string {
	if c.Register == "" && c.PreEnqueue == "" {
		return nil
	}
	cfg := c.Build()
	names := []string{"UnregisteredPlugin"}
	for pl := range cfg.PluginEvents {
		names = append(names, pl)
	}
	for pl := range cfg.PreEnqueuePlugins {
		names = append(names, pl)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// addHint returns hints with the declared registration's hint, if it has
// one.
func (d declaration) addHint(hints spec.QueueingHints) spec.QueueingHints {
	var fn spec.QueueingHintFn
	switch d.hint {
	case "skip":
		fn = SkipHint
	case "zone":
		fn = NodeZoneHint
	default:
		return hints
	}
	if hints == nil {
		hints = spec.QueueingHints{}
	}
	hints[spec.HintKey{Plugin: d.plugin, Event: d.event}] = fn
	return hints
}

// admits is a preenqueue= declaration's PreEnqueue function: the standard
// one for the labels the standard plugins refuse (gated=yes is GateAdmits,
// hold=yes HoldAdmits), so that the config crosses to a queue in another
// process by name (PreEnqueueName); a function of its own for any other
// label.
func (d declaration) admits() spec.PreEnqueueFn {
	switch d.label {
	case [2]string{"gated", "yes"}:
		return GateAdmits
	case [2]string{"hold", "yes"}:
		return HoldAdmits
	}
	k, v := d.label[0], d.label[1]
	return func(p *spec.Pod) bool { return p.Labels[k] != v }
}
