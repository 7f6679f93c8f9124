package schedqtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/spec"
)

// Scenario is one scenario file: header directives, then operations. On
// disk it is a datadriven file; the path under a scenarios directory,
// without ".txt", is its name.
//
//	# prose
//	rules R1 I4
//	----
//
//	known-difference profiles=(upstream-v1.33.13-classic,upstream-v1.37.2) kind=bug finding=F02
//	what differs and why, one line
//	source: v1.33.13 pkg/scheduler/backend/queue/scheduling_queue.go:594 (moveToActiveQ)
//	----
//
//	config initial-backoff=10s max-backoff=10s leftover=1s
//	----
//
//	requires observes=(podinfo,moverequestcycle,closed,blocking)
//	----
//
//	add a
//	----
//	ok
//	now=+0s
//	...
type Scenario struct {
	Name string
	// Comment is the prose at the top of the file, without "# ".
	Comment []string
	// Rules are the rule and invariant ids the scenario checks ("R1",
	// "I4").
	Rules []string
	// KnownDifferences are the profiles that behave differently here.
	KnownDifferences []KnownDifference
	// Config changes the default config (Config()).
	Config ConfigChange
	// Requires lists what a target must observe or do for the scenario
	// to apply: podinfo, moverequestcycle, closed, blocking.
	Requires []string
	// Ops are the operations, in order.
	Ops []Op
}

// Requirements a scenario may state in "requires observes=(...)".
const (
	RequirePodInfo          = "podinfo"
	RequireMoveRequestCycle = "moverequestcycle"
	RequireClosed           = "closed"
	RequireBlocking         = "blocking"
)

// KnownDifference declares that targets of some profiles behave
// differently in a scenario on purpose or by their design: the scenario
// still runs on them, its failure is reported as known with Reason and
// Source, and a declared difference that does not show fails as stale.
type KnownDifference struct {
	// Profiles are the profile names the difference applies to.
	Profiles []string
	// Reason says what differs and why, in one or two sentences.
	Reason string
	// Source points at the code that explains it, e.g.
	// "pkg/scheduler/backend/queue/active_queue.go:259 (unlockedPop)".
	Source string
	// Intermittent ("known-difference profiles=(...) intermittent") says
	// the difference is a race in the target, which a sequential scenario
	// reaches only when the goroutines fall one way: a run where it does
	// not show passes, where any other declaration that does not show is
	// stale.
	Intermittent bool
	// Kind ("kind=bug") is the triage of the difference: whose intent it
	// breaks. Every declaration must have one (CheckKind).
	Kind DifferenceKind
	// Finding ("finding=F01") names the entry of the findings catalogue
	// (findings/) that describes a difference of kind bug.
	Finding string
}

// DifferenceKind is the triage of a known difference.
type DifferenceKind string

const (
	// KindBug: the target breaks its own intent (a pod lost, held in two
	// places, stuck, a panic, a heap out of order, a metric that drifts).
	// Upstream's are catalogued under findings/.
	KindBug DifferenceKind = "bug"
	// KindDeparture: the contract chose otherwise on purpose; the reason
	// says why the contract's choice is the better one.
	KindDeparture DifferenceKind = "departure"
	// KindChange: a release changed the behaviour on purpose (the reason
	// names the KEP or pull request where known); the contract follows one
	// side of the change.
	KindChange DifferenceKind = "change"
)

// DifferenceKinds are the valid kinds, in the order reports list them.
var DifferenceKinds = []DifferenceKind{KindBug, KindDeparture, KindChange}

// CheckKind reports a declaration without a valid kind: a difference that
// nobody has triaged is not yet known, only observed.
func (k KnownDifference) CheckKind() error {
	if !slices.Contains(DifferenceKinds, k.Kind) {
		if k.Kind == "" {
			return fmt.Errorf("known difference %q has no kind: say kind=bug (the target breaks its own intent), kind=departure (the contract chose otherwise on purpose) or kind=change (a release changed it on purpose)", k.Reason)
		}
		return fmt.Errorf("known difference %q: unknown kind %q (want bug, departure or change)", k.Reason, k.Kind)
	}
	if k.Finding != "" && k.Kind != KindBug {
		return fmt.Errorf("known difference %q names finding %s but is of kind %s: only a bug is a finding", k.Reason, k.Finding, k.Kind)
	}
	return nil
}

// AppliesTo reports whether the difference is declared for profile.
func (k KnownDifference) AppliesTo(profile string) bool { return slices.Contains(k.Profiles, profile) }

// ConfigChange is the "config" directive: the profile the scenario is
// written for, and durations that replace the defaults of its config
// (ConfigFor); zero keeps the default.
//
// "config profile=hints" tags a scenario as one of the hints profile: it
// starts from HintsConfig() (the standard hint set), the runner plays it
// only on targets that accept that config, and its expected output is what
// the model prints in that profile. Without profile= a scenario is
// classic. "max-backoff=0s" (NoBackoff) is only valid in the hints
// profile, where it switches backoff off (R7h).
type ConfigChange struct {
	Profile        spec.Profile  // profile=
	InitialBackoff time.Duration // initial-backoff=
	MaxBackoff     time.Duration // max-backoff=
	Leftover       time.Duration // leftover=: PodMaxInUnschedulablePodsDuration
	// NoBackoff is "max-backoff=0s": PodMaxBackoffDuration 0.
	NoBackoff bool
	// Gates is "gates=on" in a classic scenario: the classic config with
	// the PreEnqueue plugins of ClassicGates (R17).
	Gates bool
	// ZoneHint is "zone-hint=on" in a hints scenario: Fit's NodeAdd
	// registration gets NodeZoneHint, which reads the event's node
	// object (R19).
	ZoneHint bool
	// Register and PreEnqueue are "register=(...)" and "preenqueue=(...)":
	// the scenario's own plugins (declare.go), in canonical spelling.
	Register, PreEnqueue string
	// GroupsV138 is "groups=v1.38" in a podgroups scenario: v1.38's group
	// rules (spec.Config.PodGroupsV138, G12 and G13); "groups=v1.37"
	// (the default) is v1.37.2's.
	GroupsV138 bool
	// AddRegister is "add-register=(...)": registrations of the profile's
	// own plugins added to its registry, which it keeps with its hints
	// (declare.go), in canonical spelling.
	AddRegister string
	// PreQueueing is "prequeue=on" in a hints scenario: the pre-queueing
	// setting of v1.38 (spec.Config.PreQueueing, R20-R22) with the
	// standard pre-queueing hints (StandardPreQueueingHints) of the
	// registrations the scenario has.
	PreQueueing bool
}

// IsZero reports whether the change changes nothing.
func (c ConfigChange) IsZero() bool { return c == ConfigChange{} }

// Build is the scenario's config: ConfigFor(c.Profile) with the change.
func (c ConfigChange) Build() spec.Config { return c.Apply(ConfigFor(c.Profile)) }

// Apply returns cfg with the change's durations (the profile is Build's
// business).
func (c ConfigChange) Apply(cfg spec.Config) spec.Config {
	if c.NoBackoff {
		cfg.PodMaxBackoffDuration = 0
	}
	if c.InitialBackoff != 0 {
		cfg.PodInitialBackoffDuration = c.InitialBackoff
	}
	if c.MaxBackoff != 0 {
		cfg.PodMaxBackoffDuration = c.MaxBackoff
	}
	if c.Leftover != 0 {
		cfg.PodMaxInUnschedulablePodsDuration = c.Leftover
	}
	if c.Profile != spec.ProfileClassic {
		cfg.Profile = c.Profile
	}
	if c.Gates {
		cfg.PreEnqueuePlugins = ClassicGates()
	}
	if c.ZoneHint {
		cfg.QueueingHints = maps.Clone(cfg.QueueingHints)
		cfg.QueueingHints[spec.HintKey{Plugin: PluginFit, Event: NodeAdd}] = NodeZoneHint
	}
	cfg = c.applyDeclared(cfg)
	if c.PreQueueing {
		cfg = withPreQueueing(cfg)
	}
	cfg.PodGroupsV138 = c.GroupsV138
	return cfg
}

// String is the directive line.
func (c ConfigChange) String() string {
	w := []string{"config"}
	if c.Profile != spec.ProfileClassic {
		w = append(w, "profile="+c.Profile.String())
	}
	if c.NoBackoff {
		w = append(w, "max-backoff=0s")
	}
	if c.Gates {
		w = append(w, "gates=on")
	}
	if c.ZoneHint {
		w = append(w, "zone-hint=on")
	}
	if c.PreQueueing {
		w = append(w, "prequeue=on")
	}
	if c.GroupsV138 {
		w = append(w, "groups=v1.38")
	}
	w = append(w, c.declaredWords()...)
	for _, f := range []struct {
		k string
		d time.Duration
	}{{"initial-backoff", c.InitialBackoff}, {"max-backoff", c.MaxBackoff}, {"leftover", c.Leftover}} {
		if f.d != 0 {
			w = append(w, f.k+"="+f.d.String())
		}
	}
	return strings.Join(w, " ")
}

// ParseConfig reads the arguments of a "config" directive.
func ParseConfig(args []datadriven.CmdArg) (ConfigChange, error) {
	var c ConfigChange
	for _, a := range args {
		var dst *time.Duration
		switch a.Key {
		case "profile":
			if len(a.Vals) != 1 {
				return c, fmt.Errorf("config: profile takes one name (classic or hints)")
			}
			p, err := spec.ParseProfile(a.Vals[0])
			if err != nil {
				return c, fmt.Errorf("config: %w", err)
			}
			c.Profile = p
			continue
		case "gates", "zone-hint", "prequeue":
			if len(a.Vals) != 1 || a.Vals[0] != "on" {
				return c, fmt.Errorf("config: write %s=on", a.Key)
			}
			switch a.Key {
			case "gates":
				c.Gates = true
			case "zone-hint":
				c.ZoneHint = true
			default:
				c.PreQueueing = true
			}
			continue
		case "groups":
			if len(a.Vals) != 1 || (a.Vals[0] != "v1.38" && a.Vals[0] != "v1.37") {
				return c, fmt.Errorf("config: write groups=v1.38 (v1.38's group rules, G12 and G13) or groups=v1.37 (the default)")
			}
			c.GroupsV138 = a.Vals[0] == "v1.38"
			continue
		case "register", "preenqueue", "add-register":
			v, err := parseDeclared(a)
			if err != nil {
				return c, err
			}
			switch a.Key {
			case "register":
				c.Register = v
			case "add-register":
				c.AddRegister = v
			default:
				c.PreEnqueue = v
			}
			continue
		case "initial-backoff":
			dst = &c.InitialBackoff
		case "max-backoff":
			dst = &c.MaxBackoff
		case "leftover":
			dst = &c.Leftover
		default:
			return c, fmt.Errorf("config: unknown setting %q (want profile, gates, zone-hint, prequeue, groups, register, add-register, preenqueue, initial-backoff, max-backoff, leftover)", a.Key)
		}
		if len(a.Vals) != 1 {
			return c, fmt.Errorf("config: %s takes one duration", a.Key)
		}
		d, err := time.ParseDuration(a.Vals[0])
		if err == nil && d == 0 && a.Key == "max-backoff" {
			c.NoBackoff, c.MaxBackoff = true, 0
			continue
		}
		if err != nil || d <= 0 {
			return c, fmt.Errorf("config: %s=%s: want a positive Go duration", a.Key, a.Vals[0])
		}
		*dst = d
	}
	if c.Gates && c.Profile != spec.ProfileClassic {
		return c, fmt.Errorf("config: gates=on is for the classic profile; the hints profile always has its PreEnqueue plugins")
	}
	if c.GroupsV138 && c.Profile != spec.ProfilePodGroups {
		return c, fmt.Errorf("config: groups=v1.38 is for the podgroups profile (v1.38's group rules); the %v profile has no groups", c.Profile)
	}
	switch {
	case c.PreQueueing && c.Profile == spec.ProfilePodGroups && !c.GroupsV138:
		return c, fmt.Errorf("config: prequeue=on in the podgroups profile needs groups=v1.38 (G14: v1.38 has both)")
	case c.PreQueueing && !c.Profile.HasHints():
		return c, fmt.Errorf("config: prequeue=on is for the hints and podgroups profiles (v1.38's default there); the %v profile does not have it", c.Profile)
	}
	if c.ZoneHint && !c.Profile.HasHints() {
		return c, fmt.Errorf("config: zone-hint=on is for the hints profile; the classic profile has no queueing hints")
	}
	return c, c.checkDeclared()
}

// ParseRequires reads the arguments of a "requires" directive.
func ParseRequires(args []datadriven.CmdArg) ([]string, error) {
	var out []string
	for _, a := range args {
		if a.Key != "observes" {
			return nil, fmt.Errorf("requires: unknown argument %q (want observes=(...))", a.Key)
		}
		for _, v := range a.Vals {
			switch v = strings.TrimSpace(v); v {
			case RequirePodInfo, RequireMoveRequestCycle, RequireClosed, RequireBlocking:
				out = append(out, v)
			default:
				return nil, fmt.Errorf("requires: unknown %q (want podinfo, moverequestcycle, closed, blocking)", v)
			}
		}
	}
	return out, nil
}

// ParseKnownDifference reads a "known-difference" directive: its
// profiles=(...) argument and its input lines, the reason (lines joined by
// a space) and one line "source: ...".
func ParseKnownDifference(args []datadriven.CmdArg, input string) (KnownDifference, error) {
	var k KnownDifference
	for _, a := range args {
		if a.Key == "intermittent" && len(a.Vals) == 0 {
			k.Intermittent = true
			continue
		}
		if (a.Key == "kind" || a.Key == "finding") && len(a.Vals) == 1 {
			if a.Key == "kind" {
				k.Kind = DifferenceKind(a.Vals[0])
			} else {
				k.Finding = a.Vals[0]
			}
			continue
		}
		if a.Key != "profiles" {
			return k, fmt.Errorf("known-difference: unknown argument %q (want profiles=(...), kind=bug|departure|change, finding=ID for a catalogued bug and, for a race, intermittent)", a.Key)
		}
		for _, v := range a.Vals {
			if v = strings.TrimSpace(v); v != "" {
				k.Profiles = append(k.Profiles, v)
			}
		}
	}
	var reason []string
	for _, l := range strings.Split(input, "\n") {
		if s, ok := strings.CutPrefix(l, "source: "); ok {
			k.Source = strings.TrimSpace(s)
		} else if l = strings.TrimSpace(l); l != "" {
			reason = append(reason, l)
		}
	}
	k.Reason = strings.Join(reason, " ")
	if len(k.Profiles) == 0 || k.Reason == "" || k.Source == "" {
		return k, fmt.Errorf("known-difference needs profiles=(...), a reason and a \"source: \" line")
	}
	if err := k.CheckKind(); err != nil {
		return k, err
	}
	return k, nil
}

// Directive is one directive of a scenario file as read by ParseScenario.
type Directive struct {
	Line     int
	Cmd      string
	Args     []datadriven.CmdArg
	Input    string
	Expected string
}

// ReadDirectives splits a scenario file into its directives: the
// datadriven format restricted to what scenarios use (a directive line,
// optional input lines, "----", the expected output up to a blank line).
func ReadDirectives(text string) (comments []string, ds []Directive, err error) {
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "#") {
			if len(ds) == 0 {
				comments = append(comments, strings.TrimSpace(strings.TrimPrefix(l, "#")))
			}
			continue
		}
		d := Directive{Line: i + 1}
		if d.Cmd, d.Args, err = datadriven.ParseLine(l); err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		var input []string
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			input = append(input, lines[i])
		}
		if i == len(lines) {
			return nil, nil, fmt.Errorf("line %d: %s has no ---- line", d.Line, d.Cmd)
		}
		d.Input = strings.Join(input, "\n")
		var out []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			out = append(out, lines[i]+"\n")
		}
		d.Expected = strings.Join(out, "")
		ds = append(ds, d)
	}
	return comments, ds, nil
}

// ParseScenario reads a scenario file. Header directives must come before
// the first operation; the expected outputs are not checked (the runners
// compute them).
func ParseScenario(name, text string) (Scenario, error) {
	sc := Scenario{Name: name}
	comments, ds, err := ReadDirectives(text)
	if err != nil {
		return sc, fmt.Errorf("%s: %w", name, err)
	}
	sc.Comment = comments
	for _, d := range ds {
		if err := sc.AddDirective(d.Cmd, d.Args, d.Input); err != nil {
			return sc, fmt.Errorf("%s:%d: %w", name, d.Line, err)
		}
	}
	return sc, nil
}

// IsHeader reports whether cmd is a header directive (rules,
// known-difference, config, requires) rather than an operation.
func IsHeader(cmd string) bool {
	switch cmd {
	case "rules", "known-difference", "config", "requires":
		return true
	}
	return false
}

// AddDirective adds one directive to the scenario: a header directive
// (only before the first operation) or an operation.
func (sc *Scenario) AddDirective(cmd string, args []datadriven.CmdArg, input string) error {
	if IsHeader(cmd) && len(sc.Ops) > 0 {
		return fmt.Errorf("%s must come before the first operation", cmd)
	}
	switch cmd {
	case "rules":
		for _, a := range args {
			if len(a.Vals) > 0 {
				return fmt.Errorf("rules: want ids such as R1 I4, got %q", a.String())
			}
			sc.Rules = append(sc.Rules, a.Key)
		}
	case "known-difference":
		k, err := ParseKnownDifference(args, input)
		if err != nil {
			return err
		}
		sc.KnownDifferences = append(sc.KnownDifferences, k)
	case "config":
		c, err := ParseConfig(args)
		if err != nil {
			return err
		}
		sc.Config = c
	case "requires":
		r, err := ParseRequires(args)
		if err != nil {
			return err
		}
		sc.Requires = append(sc.Requires, r...)
	default:
		if input != "" {
			return fmt.Errorf("%s takes no input lines", cmd)
		}
		op, err := sc.opFromArgs(cmd, args) // checked against the profile (validate.go)
		if err != nil {
			return err
		}
		sc.Ops = append(sc.Ops, op)
	}
	return nil
}

// FormatScenario returns the file text of sc, with the model's expected
// output after each operation: the text a failing random run prints and a
// user saves under testdata/scenarios/ to keep the failure as a
// regression. An error means an operation is not valid in the scenario
// (e.g. "fail a" of a pod never popped).
func FormatScenario(sc Scenario) (string, error) {
	var b strings.Builder
	for _, c := range sc.Comment {
		if c == "" {
			b.WriteString("#\n")
		} else {
			b.WriteString("# " + c + "\n")
		}
	}
	if len(sc.Comment) > 0 {
		b.WriteString("\n")
	}
	if len(sc.Rules) > 0 {
		b.WriteString("rules " + strings.Join(sc.Rules, " ") + "\n----\n\n")
	}
	for _, k := range sc.KnownDifferences {
		flag := ""
		if k.Kind != "" {
			flag += " kind=" + string(k.Kind)
		}
		if k.Finding != "" {
			flag += " finding=" + k.Finding
		}
		if k.Intermittent {
			flag += " intermittent"
		}
		fmt.Fprintf(&b, "known-difference profiles=(%s)%s\n%s\nsource: %s\n----\n\n", strings.Join(k.Profiles, ","), flag, k.Reason, k.Source)
	}
	if !sc.Config.IsZero() {
		b.WriteString(sc.Config.String() + "\n----\n\n")
	}
	if len(sc.Requires) > 0 {
		b.WriteString("requires observes=(" + strings.Join(sc.Requires, ",") + ")\n----\n\n")
	}
	r, err := NewModelRun(sc.Config.Build(), Start)
	if err != nil {
		return "", err
	}
	for i, op := range sc.Ops {
		_, out, err := r.Apply(op)
		if err != nil {
			return "", fmt.Errorf("%s: operation %d (%s): %w", sc.Name, i+1, op, err)
		}
		fmt.Fprintf(&b, "%s\n----\n%s\n%s\n", op, out, r.Render())
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// FormatOps is the operations as scenario lines, one a line, for messages.
func FormatOps(ops []Op) string {
	var b strings.Builder
	for _, op := range ops {
		b.WriteString(op.String() + "\n")
	}
	return b.String()
}
