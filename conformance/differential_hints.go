package conformance

import (
	"flag"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// RunHintsDifferential is RunDifferential in the hints profile: the target,
// built with schedqtest.HintsConfig (max backoff 0 in some runs), and the
// model take the same random valid operations, compared after every step.
// It returns whether they agreed; na is set instead when the target
// refuses the hints config. It runs DefaultChecks sequences (or
// -rapid.checks); Run takes Options (Checks, Ignore, FailFileDir).
//
// The operations are those of the profile on which schedq and
// kube-scheduler v1.37.2 agree by design: left out are the declared
// differences (Add of a pod in activeQ, backoffQ or in flight, Delete of
// an in-flight pod, failure of a pod already queued, Close), which the
// hints scenarios show with their reasons.
func RunHintsDifferential(t *testing.T, newTarget NewTarget) (ok bool, na string) {
	t.Helper()
	return runHintsDifferential(t, newTarget, randomOptions(Options{}))
}

func runHintsDifferential(t *testing.T, newTarget NewTarget, ro randomRuns) (ok bool, na string) {
	t.Helper()
	if _, na = constructTarget(t, newTarget, schedqtest.HintsConfig(), schedqtest.Start); na != "" {
		return false, na
	}
	return t.Run("random", func(t *testing.T) {
		if ro.ran != nil {
			*ro.ran = true
		}
		if !ro.fromFlag {
			checksFlag.Lock()
			old := flag.Lookup("rapid.checks").Value.String()
			_ = flag.Set("rapid.checks", strconv.Itoa(ro.checks))
			defer func() { _ = flag.Set("rapid.checks", old); checksFlag.Unlock() }()
		}
		if dir, err := failFileDir(t, ro.failFileDir); err != nil {
			t.Logf("conformance: rapid's fail files go to its default, testdata/rapid: %v", err)
		} else {
			t.Logf("conformance: rapid's fail files go to %s", filepath.Join(dir, "testdata", "rapid"))
		}
		checkHintsDifferential(t, t, newTarget, ro.ignore)
	}), ""
}

// runHintsDifferentialResult runs the hints random runs for Run; metrics
// says whether the target reports metrics (Observes.Metrics), which the
// runs then compare (R14h) unless Options.Ignore leaves them out.
func runHintsDifferentialResult(t *testing.T, newTarget NewTarget, opts Options, metrics bool, ran *bool) Result {
	res := Result{Scenario: "model-differential random runs (hints)", Rules: []spec.Rule{"R1h-R17"}, Outcome: Pass,
		Profile: spec.ProfileHints.String()}
	if opts.SkipHintsDifferential != "" {
		res.Outcome, res.Detail = NotApplicable, opts.SkipHintsDifferential
		return res
	}
	if metrics && !slices.Contains(opts.Ignore, IgnoreMetrics) {
		res.Rules = append(res.Rules, "R14h")
	}
	ro := randomOptions(opts)
	ro.ran = ran
	ok, na := runHintsDifferential(t, newTarget, ro)
	switch {
	case na != "":
		res.Outcome, res.Detail = NotApplicable, na
	case !ok:
		res.Outcome, res.Detail = Fail, ro.String()
	default:
		res.Detail = ro.String()
	}
	return res
}

func checkHintsDifferential(rt rapid.TB, tb testing.TB, newTarget NewTarget, ignore map[Observation]bool) {
	rapid.Check(rt, func(r *rapid.T) {
		g := newGenerator(tb, newTarget)
		g.d.ignore = ignore
		g.d.sc.Config = schedqtest.ConfigChange{Profile: spec.ProfileHints,
			NoBackoff: rapid.IntRange(0, 4).Draw(r, "noBackoff") == 0}
		if err := g.d.begin(); err != nil {
			r.Fatal(err)
		}
		if g.d.target == nil {
			r.Fatalf("the target refused the hints config: %s", g.d.na)
		}
		defer g.d.target.Close()
		r.Repeat(g.hintsActions())
	})
}

var (
	// AssignedPod/UpdatePodLabel, not PodLabel: kube-scheduler raises pod
	// events for assigned, unscheduled or target pods, never for resource
	// Pod, which upstream registrations (unrolled) do not match.
	hintsDiffEvents = []string{"NodeAdd", "NodeLabel", "Node/Update", "NodeTaint", "PVAdd", "WildCard", "AssignedPod/UpdatePodLabel", "AssignedPodAdd"}
	hintsDiffLabels = []map[string]string{nil, {"gated": "yes"}, {"fit": "label"}}
	hintsDiffSteps  = []time.Duration{0, time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond, time.Second,
		2 * time.Second, 10 * time.Second, 5 * time.Minute, 5*time.Minute + 1}
)

func (g *generator) hintsActions() map[string]func(*rapid.T) {
	name := rapid.SampledFrom(diffNames)
	labels := rapid.SampledFrom(hintsDiffLabels)
	plugins := func(rt *rapid.T, label string, n int) []string {
		ps := rapid.SliceOfNDistinct(rapid.SampledFrom(schedqtest.HintsPlugins), 0, n, rapid.ID).Draw(rt, label)
		if len(ps) == 0 {
			return nil
		}
		return ps
	}
	return map[string]func(*rapid.T){
		"add": func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			if l := g.where(n); l != spec.Nowhere && l != spec.InUnschedulablePods {
				rt.Skip("Add of a pod in activeQ, backoffQ or in flight is a declared difference")
			}
			op := schedqtest.Op{Kind: schedqtest.KindAdd, Pod: schedqtest.PodRef{Name: n, Labels: labels.Draw(rt, "labels")}}
			if p := int32(rapid.IntRange(0, 2).Draw(rt, "priority")); p != 0 {
				op.Pod.Priority = &p
			}
			g.do(rt, op)
		},
		"pop": func(rt *rapid.T) {
			if len(g.d.shadow.Model.PopCandidates()) == 0 {
				rt.Skip("Pop would block")
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindPop})
		},
		"fail": func(rt *rapid.T) {
			fl := g.inFlight()
			if len(fl) == 0 {
				rt.Skip("nothing in flight")
			}
			op := schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: rapid.SampledFrom(fl).Draw(rt, "failed")},
				Plugins: plugins(rt, "plugins", 2)}
			if rapid.IntRange(0, 3).Draw(rt, "pending?") == 0 {
				op.Pending = plugins(rt, "pending", 1)
			}
			g.do(rt, op)
		},
		"move": func(rt *rapid.T) {
			e, _ := schedqtest.ParseEvent(rapid.SampledFrom(hintsDiffEvents).Draw(rt, "event"))
			op := schedqtest.Op{Kind: schedqtest.KindMove, Event: e}
			if rapid.IntRange(0, 3).Draw(rt, "preCheck") == 0 {
				skip := name.Draw(rt, "preCheckSkips")
				op.PreCheck = slices.DeleteFunc(slices.Clone(diffNames), func(n string) bool { return n == skip })
			}
			g.do(rt, op)
		},
		"flush-backoff":  func(rt *rapid.T) { g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushBackoff}) },
		"flush-leftover": func(rt *rapid.T) { g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushLeftover}) },
		"activate": func(rt *rapid.T) {
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindActivate, Pods: []schedqtest.PodRef{{Name: name.Draw(rt, "pod")}}})
		},
		"update": func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			l := labels.Draw(rt, "labels")
			if l == nil {
				l = map[string]string{}
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: schedqtest.PodRef{Name: n, Labels: l}})
		},
		"delete": func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			if l := g.where(n); l == spec.Nowhere || l == spec.InFlight {
				rt.Skip("Delete of an unknown pod is bad input; of an in-flight pod a declared difference")
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindDelete, Pod: schedqtest.PodRef{Name: n}})
		},
		"done": func(rt *rapid.T) {
			fl := g.inFlight()
			if len(fl) == 0 {
				rt.Skip("nothing in flight")
			}
			n := rapid.SampledFrom(fl).Draw(rt, "done")
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindDone, UID: string(schedqtest.UIDOf(n))})
		},
		"assigned-add": func(rt *rapid.T) {
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindAssignedAdd,
				Pod: schedqtest.PodRef{Name: "assigned-web", Labels: map[string]string{"app": "web"}}})
		},
		"tick": func(rt *rapid.T) {
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindTick, Duration: rapid.SampledFrom(hintsDiffSteps).Draw(rt, "step")})
		},
	}
}
