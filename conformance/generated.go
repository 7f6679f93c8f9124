package conformance

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The generated run (issue 24): scenarios generated from the state graphs
// of the TLA+ specs, one per step of a graph (tla/edges_test.go writes
// them, `go test ./tla/ -run TestEdgeScenarios -edges.out=DIR`), played
// on a target by the ordinary driver. Thousands of scenarios cannot each
// carry a known-difference directive, so their failures are grouped by
// signature instead: the operation that failed, the checks that caught it
// and the parts of the state that differ (which place, which pod fields,
// which counters, which metrics), with pod names, times and counts left
// out. The hand-written scenarios that declare a known difference for the
// target are played first, and the signature each one shows is that
// difference's; a generated failure with the same signature is counted
// under it. A failure whose signature no declaration shows is a
// difference nobody declared: the run fails with the group's shortest
// scenario, shrunk to the fewest operations that still fail the same way.
//
// A failure is counted under a declared difference when it fails at the
// same kind of operation and the same parts of the state differ, each in
// the declared difference's fields or more (matchKey, matchKnown:
// the metrics and the wording of the problems are left out, since which
// invariants a difference also breaks depends on the state it happens
// in). That is a heuristic, not a proof that two failures have one cause:
// it names what differs, not why. It errs towards splitting (one more
// differing field makes another group), so a new difference is hidden
// under a declared one only if it breaks exactly the same parts of the
// state at the same kind of operation.

// GeneratedOptions tune RunGenerated.
type GeneratedOptions struct {
	// KnownDifferences are the target's own declarations by scenario name,
	// as Options.KnownDifferences (for the upstream releases between those
	// the scenario files name).
	KnownDifferences map[string]KnownDifference
	// Max, if positive, runs at most this many scenarios of each graph
	// directory, spread evenly over its files.
	Max int
	// Ignore leaves observations out of the comparison, as Options.Ignore
	// does for the random runs (a target whose random runs leave the
	// metrics out for a declared reason leaves them out here too).
	Ignore []Observation
}

// GeneratedGroup is the generated scenarios that failed the same way.
type GeneratedGroup struct {
	Signature string
	Count     int
	// Known names the hand-written scenario whose declared difference
	// shows this signature, and its reason; empty for an undeclared one.
	Known, Reason string
	// Scenario is the shortest failing scenario of the group, shrunk.
	Scenario string
	// Detail is its failure message on the target.
	Detail string
}

// GeneratedResult is the generated run of one graph directory on one
// target.
type GeneratedResult struct {
	Target string // the target's name
	Graph  string // the directory's name, e.g. "GraphExt"
	Index  string // the generator's INDEX line: what was generated of how many steps
	Ran    int
	Pass   int
	NA     int
	Groups []GeneratedGroup
}

// Unexplained counts the failures no declared difference explains.
func (r GeneratedResult) Unexplained() (n int) {
	for _, g := range r.Groups {
		if g.Known == "" {
			n += g.Count
		}
	}
	return n
}

// String is the result's summary line.
func (r GeneratedResult) String() string {
	known := 0
	for _, g := range r.Groups {
		if g.Known != "" {
			known += g.Count
		}
	}
	s := fmt.Sprintf("generated %s on %s: %d scenarios ran: %d pass, %d known differences, %d unexplained, %d n/a", r.Graph, r.Target, r.Ran, r.Pass, known, r.Unexplained(), r.NA)
	if r.Index != "" {
		s += " [generated: " + r.Index + "]"
	}
	return s
}

// RunGenerated plays the generated scenarios under dir (one directory per
// graph, as the generator writes them) on targets made by newTarget, and
// fails t for each group of failures no declared difference explains,
// with its shrunk scenario. Each graph's directory is a subtest.
func RunGenerated(t *testing.T, newTarget NewTarget, dir string, opts GeneratedOptions) []GeneratedResult {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("conformance: the generated scenarios: %v", err)
	}
	known := knownSignatures(t, newTarget, opts.KnownDifferences, opts.Ignore)
	target := targetName(t, newTarget)
	for _, k := range slices.Sorted(maps.Keys(known)) {
		t.Logf("declared difference %s shows as: %s", known[k].scenario, k)
	}
	var out []GeneratedResult
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		files, err := ReadScenarioDir(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("conformance: %v", err)
		}
		if opts.Max > 0 && len(files) > opts.Max {
			stride := len(files) / opts.Max
			var sel []ScenarioFile
			for i := 0; i < len(files) && len(sel) < opts.Max; i += stride {
				sel = append(sel, files[i])
			}
			files = sel
		}
		res := GeneratedResult{Target: target, Graph: e.Name()}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name(), "INDEX")); err == nil {
			res.Index = strings.TrimSpace(string(b))
		}
		t.Run(e.Name(), func(t *testing.T) {
			res = runGeneratedFiles(t, newTarget, files, known, res, opts.Ignore)
			for _, g := range res.Groups {
				if g.Known == "" {
					t.Errorf("generated scenarios fail on the target in a way no declared difference explains (%d scenarios; signature %s):\n%s\n--- shortest scenario, shrunk ---\n%s--- end of scenario ---",
						g.Count, g.Signature, g.Detail, g.Scenario)
				}
			}
			t.Log(res.String())
			for _, g := range res.Groups {
				if g.Known != "" {
					t.Logf("  %5d under %s", g.Count, g.Known)
				}
			}
		})
		out = append(out, res)
	}
	if dir := os.Getenv("SCHEDQ_CONFORMANCE_RESULTS"); dir != "" && target != "" {
		if err := WriteResult(filepath.Join(dir, GeneratedReportDir), target, out); err != nil {
			t.Errorf("writing results: %v", err)
		}
	}
	return out
}

// GeneratedReportDir is the subdirectory of the results directory that
// RunGenerated writes its results to when $SCHEDQ_CONFORMANCE_RESULTS is
// set (make generated sets it): generated/<target name>.json, the target's
// GeneratedResults, for RESULTS.md.
const GeneratedReportDir = "generated"

// knownDifference is a declared difference's signature.
type knownDifference struct{ scenario, reason string }

// knownSignatures plays the catalogue's scenarios that declare a known
// difference for the target (in the file, or in own) and returns the
// signature each one shows.
func knownSignatures(t *testing.T, newTarget NewTarget, own map[string]KnownDifference, ignore []Observation) map[string]knownDifference {
	cat, err := catalogue("")
	if err != nil {
		t.Fatalf("conformance: reading the catalogue: %v", err)
	}
	name := targetName(t, newTarget)
	out := map[string]knownDifference{}
	for _, f := range cat {
		sc, err := schedqtest.ParseScenario(f.Name, f.Text)
		if err != nil {
			continue
		}
		var decl *KnownDifference
		for i := range sc.KnownDifferences {
			if sc.KnownDifferences[i].AppliesTo(name) {
				decl = &sc.KnownDifferences[i]
			}
		}
		if k, ok := own[f.Name]; ok {
			decl = &k
		}
		if decl == nil {
			continue
		}
		if r := playQuietly(t, newTarget, f, ignore...); r.failure != "" {
			sig := matchKey(signature(r.failure))
			if _, dup := out[sig]; !dup {
				out[sig] = knownDifference{scenario: f.Name, reason: decl.Reason}
			}
		}
	}
	return out
}

// targetName is the name of the targets newTarget makes (targetInfo).
func targetName(t testing.TB, newTarget NewTarget) string { return targetInfo(t, newTarget).Name }

// targetInfo is what the targets newTarget makes say of themselves, from
// one built with the classic config, or else the hints one; zero if it
// refuses both.
func targetInfo(t testing.TB, newTarget NewTarget) TargetInfo {
	for _, p := range []spec.Profile{spec.ProfileClassic, spec.ProfileHints} {
		q := &quietTB{scopedTB: scopedTB{TB: t}}
		var info TargetInfo
		done := make(chan struct{})
		go func() { // a constructor's failure ends this goroutine, not the test's
			defer close(done)
			if tg, _ := constructTarget(q, newTarget, schedqtest.ConfigFor(p), schedqtest.Start); tg != nil {
				info = tg.Info()
			}
		}()
		<-done
		q.end()
		if info.Name != "" {
			return info
		}
	}
	return TargetInfo{}
}

// quietRun is one scenario played without reporting to the test.
type quietRun struct {
	info    TargetInfo
	failure string // the target's first failure, "" if none
	na      string
	invalid string // the file is not what the model does, or not valid
	ops     []schedqtest.Op
	sc      schedqtest.Scenario
}

// playQuietly plays a file through the driver with a testing.TB of its own,
// which keeps failures and cleanups to itself (the target's Close runs
// when the file is done, not at the end of the test).
func playQuietly(t testing.TB, newTarget NewTarget, f ScenarioFile, ignore ...Observation) quietRun {
	q := &quietTB{scopedTB: scopedTB{TB: t}}
	d := newDriver(q, f.Name, newTarget)
	for _, o := range ignore {
		if d.ignore == nil {
			d.ignore = map[Observation]bool{}
		}
		d.ignore[o] = true
	}
	playFile(&fileTB{TB: q}, d, f)
	q.end()
	r := quietRun{info: d.info, na: d.na, ops: d.sc.Ops, sc: d.sc}
	switch {
	case errors.Is(d.invalid, schedqtest.ErrScenario) && !q.failed:
		// The target chose another pod among equals than the scenario
		// pinned (pop choose=), and a later operation names the pod it
		// left: the step is not reachable on this target by this path.
		r.na = "the target's Pop chose another pod among equals: " + d.invalid.Error()
	case d.invalid != nil:
		r.invalid = d.invalid.Error()
	case q.failed:
		r.invalid = strings.Join(q.msgs, "\n")
	case d.na != "":
	case d.failed:
		r.failure = d.failure
	}
	return r
}

// runGeneratedFiles plays the files on fresh targets, one at a time (the
// upstream queues count their metrics in process-wide registries), and
// groups the failures.
func runGeneratedFiles(t *testing.T, newTarget NewTarget, files []ScenarioFile, known map[string]knownDifference, res GeneratedResult, ignore []Observation) GeneratedResult {
	type failed struct {
		f   ScenarioFile
		run quietRun
	}
	failures := map[string][]failed{}
	var invalid []string
	for _, f := range files {
		r := playQuietly(t, newTarget, f, ignore...)
		res.Ran++
		switch {
		case r.invalid != "":
			invalid = append(invalid, f.Name+": "+firstLine(r.invalid))
		case r.na != "":
			res.NA++
		case r.failure != "":
			sig := signature(r.failure)
			failures[sig] = append(failures[sig], failed{f, r})
		default:
			res.Pass++
		}
	}
	if len(invalid) > 0 {
		t.Errorf("%d generated scenarios are not valid or not what the model prints (regenerate them); the first: %s", len(invalid), invalid[0])
	}
	for _, sig := range slices.Sorted(maps.Keys(failures)) {
		fs := failures[sig]
		g := GeneratedGroup{Signature: sig, Count: len(fs)}
		if k, ok := matchKnown(known, sig); ok {
			g.Known, g.Reason = k.scenario, k.reason
		} else {
			shortest := slices.MinFunc(fs, func(a, b failed) int { return cmp.Compare(len(a.run.ops), len(b.run.ops)) })
			g.Scenario, g.Detail = shrink(t, newTarget, shortest.run, sig, ignore)
		}
		res.Groups = append(res.Groups, g)
	}
	return res
}

// shrink removes operations from a failing scenario, one at a time, while
// the model still accepts it and the target still fails with the same
// signature; it returns the scenario file and its failure.
func shrink(t testing.TB, newTarget NewTarget, r quietRun, sig string, ignore []Observation) (string, string) {
	sc := r.sc
	sc.Ops = slices.Clone(r.ops)
	detail := r.failure
	for changed := true; changed; {
		changed = false
		for i := len(sc.Ops) - 1; i >= 0; i-- {
			try := sc
			try.Ops = slices.Delete(slices.Clone(sc.Ops), i, i+1)
			try.Comment = nil
			text, err := schedqtest.FormatScenario(try)
			if err != nil {
				continue // the model refuses the shorter sequence
			}
			got := playQuietly(t, newTarget, ScenarioFile{Name: r.sc.Name, Text: text}, ignore...)
			if got.failure != "" && signature(got.failure) == sig {
				sc, detail, changed = try, got.failure, true
			}
		}
	}
	sc.Comment = []string{"Shrunk from " + r.sc.Name + ": " + firstLine(strings.SplitN(detail, "\n", 2)[1])}
	text, err := schedqtest.FormatScenario(sc)
	if err != nil {
		text = schedqtest.FormatOps(sc.Ops)
	}
	return text + "\n", detail
}

var (
	podKeyRe   = regexp.MustCompile(`ns/[A-Za-z0-9.-]+`)
	numberRe   = regexp.MustCompile(`(^|[^A-Za-z0-9_])[+-]?[0-9]+(\.[0-9]+)?(ms|s|m|h)?`)
	observedRe = regexp.MustCompile(` \(observed: [^)]*\)`)
	sideRe     = regexp.MustCompile(`^\s+(model|target):\s+(.*)$`)
)

// signature is what a failure message says differs, without pod names,
// times and counts: the failing operation's kind, each problem's header,
// and for each pair of model/target lines the part of the state or the
// metric they differ in.
func signature(failure string) string {
	lines := strings.Split(strings.TrimRight(failure, "\n"), "\n")
	if len(lines) == 0 {
		return ""
	}
	opKind := ""
	if _, op, ok := strings.Cut(lines[0], ": "); ok {
		opKind = strings.Fields(op + " ?")[0]
	}
	var heads, parts []string
	var model string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, " ") && strings.Contains(l, ": model: ") && strings.Contains(l, " / target: ") {
			// A metric: its name and labels.
			name, _, _ := strings.Cut(strings.TrimSpace(l), ": model: ")
			parts = append(parts, "metric "+name)
			continue
		}
		if m := sideRe.FindStringSubmatch(l); m != nil {
			if m[1] == "model" {
				model = m[2]
				continue
			}
			parts = append(parts, differingPart(model, m[2]))
			continue
		}
		if !strings.HasPrefix(l, " ") {
			h := observedRe.ReplaceAllString(l, "")
			h = podKeyRe.ReplaceAllString(h, "<pod>")
			heads = append(heads, numberRe.ReplaceAllString(h, "${1}#"))
		}
	}
	slices.Sort(heads)
	slices.Sort(parts)
	return opKind + " | " + strings.Join(slices.Compact(heads), "; ") + " | " + strings.Join(slices.Compact(parts), "; ")
}

// matchKey is what a generated failure must share with a declared
// difference to be counted under it: the failing operation and the parts
// of the state that differ, not the problems' wording (which invariants a
// difference also breaks depends on the state it happens in) nor the
// metrics, which follow from the state; a failure of the metrics alone is
// matched by the metrics that differ.
func matchKey(sig string) string {
	f := strings.SplitN(sig, " | ", 3)
	if len(f) < 3 {
		return sig
	}
	var state, metrics []string
	for _, p := range strings.Split(f[2], "; ") {
		if strings.HasPrefix(p, "metric ") {
			metrics = append(metrics, p)
		} else if p != "" {
			state = append(state, p)
		}
	}
	if len(state) > 0 {
		return f[0] + " | " + strings.Join(state, "; ")
	}
	return f[0] + " | " + strings.Join(metrics, "; ")
}

// matchKnown finds the declared difference a failure's signature falls
// under: the same operation and the same parts of the state, each with the
// declared difference's fields or more (the declared scenario may not have
// had, say, an event record for Close to drop); where a pod is in another
// place than the model's, the same places, whatever their entries' fields.
func matchKnown(known map[string]knownDifference, sig string) (knownDifference, bool) {
	key := matchKey(sig)
	if k, ok := known[key]; ok {
		return k, true
	}
	parts := func(key string) (string, map[string][]string) {
		op, rest, _ := strings.Cut(key, " | ")
		m := map[string][]string{}
		placement := false
		for _, p := range strings.Split(rest, "; ") {
			label, fields, _ := strings.Cut(p, ": ")
			m[label] = strings.Split(fields, ",")
			placement = placement || fields == "members"
		}
		if placement {
			// A pod is in another place: the fields in which the other
			// places' entries differ follow from where it was (a fresh
			// entry against an old one), so only the places count.
			for label, fields := range m {
				if !slices.Equal(fields, []string{"members"}) {
					m[label] = []string{"*"}
				}
			}
		}
		return op, m
	}
	op, got := parts(key)
	for _, k := range slices.Sorted(maps.Keys(known)) {
		kop, want := parts(k)
		if kop != op || len(want) != len(got) {
			continue
		}
		covers := true
		for label, fields := range want {
			g, ok := got[label]
			if !ok {
				covers = false
				break
			}
			for _, f := range fields {
				if !slices.Contains(g, f) {
					covers = false
				}
			}
		}
		if covers {
			return known[k], true
		}
	}
	return knownDifference{}, false
}

// differingPart names what differs between a model line and a target line
// of a rendered state: "activeQ: members" or "activeQ: ts,attempts" for a
// place, the keys of the counters line that differ, else the outcome
// kinds (an operation's result).
func differingPart(model, target string) string {
	ml, mrest, mok := strings.Cut(model, ": ")
	tl, trest, tok := strings.Cut(target, ": ")
	switch {
	case mok && tok && ml == "inFlightEvents" && tl == ml:
		return ml + ": " + inFlightPart(mrest, trest)
	case mok && tok && ml == tl && !strings.ContainsAny(ml, " ="):
		return ml + ": " + placePart(mrest, trest)
	case strings.Contains(model, "=") && strings.Contains(target, "=") && !mok && !tok:
		diff := differingKeys(keyValues(model), keyValues(target))
		slices.Sort(diff)
		return "counters: " + strings.Join(diff, ",")
	}
	kind := func(s string) string {
		s = podKeyRe.ReplaceAllString(s, "<pod>")
		f := strings.Fields(numberRe.ReplaceAllString(s, "${1}#"))
		return strings.Join(f[:min(len(f), 3)], " ")
	}
	return "outcome " + kind(model) + " / " + kind(target)
}

// inFlightPart says which kind of in-flight entry differs: the markers
// (pod:<key>), the event records, else the objects they carry.
func inFlightPart(model, target string) string {
	entries := func(s string) (markers, records []string) {
		for _, f := range strings.Fields(s) {
			if strings.HasPrefix(f, "pod:") {
				markers = append(markers, f)
			} else if f != "-" {
				name, _, _ := strings.Cut(f, "(")
				records = append(records, name)
			}
		}
		return markers, records
	}
	mm, mr := entries(model)
	tm, tr := entries(target)
	var diff []string
	if !slices.Equal(mm, tm) {
		diff = append(diff, "markers")
	}
	if !slices.Equal(mr, tr) {
		diff = append(diff, "records")
	}
	if len(diff) == 0 {
		diff = append(diff, "objects")
	}
	return strings.Join(diff, ",")
}

// placePart says what differs between two renderings of a place: its
// members, else the fields that differ on some member, else the order.
func placePart(model, target string) string {
	mp, tp := podFields(model), podFields(target)
	if !slices.Equal(slices.Sorted(maps.Keys(mp)), slices.Sorted(maps.Keys(tp))) {
		return "members"
	}
	var diff []string
	for name, mf := range mp {
		diff = append(diff, differingKeys(mf, tp[name])...)
	}
	if len(diff) == 0 {
		diff = append(diff, "order")
	}
	slices.Sort(diff)
	return strings.Join(slices.Compact(diff), ",")
}

// differingKeys are the keys whose values differ between m and t, a key
// only one of them has included.
func differingKeys(m, t map[string]string) []string {
	var diff []string
	for k, v := range m {
		if t[k] != v {
			diff = append(diff, k)
		}
	}
	for k := range t {
		if _, ok := m[k]; !ok {
			diff = append(diff, k)
		}
	}
	return diff
}

// podFields reads a rendered list of pods, "a(ts=+0s attempts=1) b(...)",
// into name -> field -> value ("-" is the empty list).
func podFields(s string) map[string]map[string]string {
	out := map[string]map[string]string{}
	depth, start := 0, 0
	name := ""
	for i, c := range s {
		switch {
		case c == '(' && depth == 0:
			name = strings.TrimSpace(s[start:i])
			start = i + 1
			depth++
		case c == '(':
			depth++
		case c == ')' && depth == 1:
			out[name] = keyValues(s[start:i])
			start = i + 1
			depth--
		case c == ')':
			depth--
		}
	}
	return out
}

// keyValues reads "k=v k2=v2" (a value may be a parenthesised list).
func keyValues(s string) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			out[f] = "true"
			continue
		}
		out[k] = v
	}
	return out
}

// quietTB is the testing.TB of a scenario played by the generated run: it
// keeps what the scenario reports, and the cleanups of its target, to
// itself.
type quietTB struct {
	scopedTB
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (q *quietTB) Helper() {}

func (q *quietTB) Log(args ...any) {}

func (q *quietTB) Logf(format string, args ...any) {}

func (q *quietTB) Error(args ...any) { q.record(fmt.Sprint(args...)) }

func (q *quietTB) Errorf(format string, args ...any) { q.record(fmt.Sprintf(format, args...)) }

func (q *quietTB) Fail() { q.record("failed") }

func (q *quietTB) FailNow() { q.record("failed"); runtime.Goexit() }

func (q *quietTB) Fatal(args ...any) { q.record(fmt.Sprint(args...)); runtime.Goexit() }

func (q *quietTB) Fatalf(format string, args ...any) {
	q.record(fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (q *quietTB) Failed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.failed
}

func (q *quietTB) Skip(args ...any) { q.record("skipped: " + fmt.Sprint(args...)); runtime.Goexit() }

func (q *quietTB) Skipf(format string, args ...any) {
	q.record("skipped: " + fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (q *quietTB) SkipNow() { q.record("skipped"); runtime.Goexit() }

func (q *quietTB) record(msg string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.failed = true
	q.msgs = append(q.msgs, msg)
}

// scopedTB is a testing.TB whose Cleanup functions run when its scope
// ends (end), not when its test does: the targets of one scenario or one
// random run are ended with it, so that a process peer that resets is
// reset and kept for the next one (remote.NewTarget) instead of one
// process per random run and per shrinking step staying open to the
// test's end.
type scopedTB struct {
	testing.TB
	cmu      sync.Mutex
	cleanups []func()
}

func (s *scopedTB) Cleanup(f func()) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	s.cleanups = append(s.cleanups, f)
}

// end runs the cleanups registered so far, the last first.
func (s *scopedTB) end() {
	s.cmu.Lock()
	fs := s.cleanups
	s.cleanups = nil
	s.cmu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}
