package impl_test

import (
	"github.com/schedq/schedq/internal/overlaytest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fmt"
	"regexp"
	"sync"
	"testing"
)

// Mutation testing of the hints profile, by the mechanism of
// properties/mutants_test.go (which covers the classic profile): each
// mutant is a textual patch of one file of impl/, applied with
// `go test -overlay` in a subprocess that runs TestHintsImplMatchesModel,
// which must then fail. A mutant's old snippet must occur exactly once, so
// a change of the implementation that invalidates one fails here instead
// of testing nothing. The table printed at the end names, for each mutant,
// the check that caught it (the CHECK[...] of the differential test: an
// invariant id, "snapshot diff", "Pop outcome", "error mismatch",
// "consistency") and the length of rapid's minimal scenario.
//
// Cost: one build of the impl test binary per mutant (two at a time) and a
// run until rapid finds and shrinks a failure; skipped with -short.

type hintsMutant struct {
	name, file, old, new, desc string
}

var hintsMutants = []hintsMutant{
	{
		name: "event-not-recorded-in-flight",
		file: "impl/hints.go",
		old:  "func (h *hints) record(occ spec.Occurrence) {\n\tif h.head < len(h.list) {",
		new:  "func (h *hints) record(occ spec.Occurrence) {\n\tif false {",
		desc: "R15: a move request while pods are in flight is not recorded, so their failures miss it (lost event)",
	},
	{
		name: "done-trims-events-others-need",
		file: "impl/hints.go",
		old:  "\t\th.list[i].dead = true\n\t}\n\tfor h.head < len(h.list)",
		new:  "\t\th.list[i].dead = true\n\t\tfor j := i + 1; j < len(h.list) && h.list[j].isRecord(); j++ {\n\t\t\th.list[j].pod, h.list[j].dead = e.info.Pod, true\n\t\t}\n\t}\n\tfor h.head < len(h.list)",
		desc: "R12h: leaving flight drops the records after the pod's own marker, which pods popped before it still need",
	},
	{
		name: "hint-error-is-skip",
		file: "impl/hints.go",
		old:  "return err != nil || hint == spec.HintQueue",
		new:  "return err == nil && hint == spec.HintQueue",
		desc: "R16: a hint that errs counts as QueueSkip instead of Queue, stranding the pod",
	},
	{
		name: "pending-queue-not-immediate",
		file: "impl/hints.go",
		old:  "\t\t\t\tif pending.Has(plugin) {\n",
		new:  "\t\t\t\tif false {\n",
		desc: "R16: a Queue from a pending plugin waits out the backoff instead of going to activeQ",
	},
	{
		name: "gated-pod-moved-by-unrelated-event",
		file: "impl/hints.go",
		old:  "if g := e.info.gating(); g != \"\" && !h.cfg.GatingEventMatches(g, occ.Event) {",
		new:  "if g := e.info.gating(); g != \"\" && false {",
		desc: "R4h: a gated pod is re-examined by an event its gating plugin did not register",
	},
	{
		name: "expiry-not-aligned",
		file: "impl/podinfo.go",
		old:  "\tf := e.info.full()\n\treturn q.cfg.IsBackingOff(&f, now)",
		new:  "\tf := e.info.full()\n\tif e.info.hints != nil {\n\t\td := spec.HintsBackoffDuration(f.BackoffCount(), q.cfg.PodInitialBackoffDuration, q.cfg.PodMaxBackoffDuration)\n\t\treturn d > 0 && !f.Timestamp.Add(d).Before(now)\n\t}\n\treturn q.cfg.IsBackingOff(&f, now)",
		desc: "R7h: backoff ends at the exact instant, not at the end of its one-second window",
	},
	{
		name: "wrong-count-drives-backoff",
		file: "impl/hints.go",
		old:  "\t\thf.UnschedulableCount++\n\t\thf.ConsecutiveErrorsCount = 0\n",
		new:  "\t\thf.UnschedulableCount++\n",
		desc: "R3h/R7h: a verdict does not reset ConsecutiveErrorsCount, so the error count keeps driving the backoff",
	},
	{
		name: "in-flight-update-queues-a-copy",
		file: "impl/queue.go",
		old:  "\t\tq.p.updatedInFlight(e, oldPod, newPod)\n",
		new:  "\t\tq.p.updatedInFlight(e, oldPod, newPod)\n\t\tq.pushActiveQ(e)\n",
		desc: "R9h: an Update of an in-flight pod queues it in activeQ (upstream v1.33's second copy) instead of only recording it",
	},
	{
		name: "replay-from-list-front",
		file: "impl/hints.go",
		old:  "for j := i + 1; j < len(h.list); j++ {",
		new:  "for j := h.head; j < len(h.list); j++ {",
		desc: "R15.4: a failing pod replays events recorded before its own Pop",
	},
	{
		name: "pop-from-backoffQ-takes-error-pods",
		file: "impl/window.go",
		old:  "\tif e.info.rejected() {\n\t\tq.popQ.push(q.windowSlot(e))",
		new:  "\tif true {\n\t\tq.popQ.push(q.windowSlot(e))",
		desc: "R2h: Pop from backoffQ takes a pod no plugin rejected (an error retry) early",
	},
	{
		name: "activate-in-flight-not-recorded",
		file: "impl/hints.go",
		old:  "if e != nil && e.loc == inFlight && e.info.Pod.UID == pod.UID && h.markerOf(e, pod.UID) >= 0 {",
		new:  "if false {",
		desc: "R8h: Activate of an in-flight pod is forgotten, so its failure parks it",
	},
	{
		name: "leftover-ignores-flushTimestamp",
		file: "impl/hints.go",
		old:  "if e.info.hints != nil && e.info.hints.FlushTimestamp.After(last) {",
		new:  "if false {",
		desc: "R6h: a gated pod the leftover flush just took is taken again at every flush",
	},
	{
		name: "pop-clears-rejectors",
		file: "impl/hints.go",
		old:  "\treturn token, false\n",
		new:  "\treturn token, true\n",
		desc: "R2h: Pop clears the rejectors, as classic Pop (and v1.33) does",
	},
	{
		name: "backoffQ-priority-update-not-resorted",
		file: "impl/entry.go",
		old:  "\tif q.windowed {\n\t\tq.backoffQ.drop(e)\n\t\tq.pushBackoffQ(e)\n\t}\n}",
		new:  "}",
		desc: "R2h/R9h: a priority update of a backoffQ pod leaves its place in the window order",
	},
}

var mutantCheckRE = regexp.MustCompile(`CHECK\[([^\]]+)\]`)

func TestHintsMutantsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs TestHintsImplMatchesModel once per mutant")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	patched := make([]string, len(hintsMutants))
	for i, m := range hintsMutants {
		src, err := os.ReadFile(filepath.Join(root, m.file))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), m.old); n != 1 {
			t.Errorf("mutant %s: its old snippet occurs %d times in %s, want once; adapt it:\n%s", m.name, n, m.file, m.old)
			continue
		}
		patched[i] = strings.Replace(string(src), m.old, m.new, 1)
	}
	if t.Failed() {
		t.FailNow()
	}
	flags := []string{"-rapid.checks=30000", "-rapid.nofailfile", "-rapid.shrinktime=20s"}
	run := func(t *testing.T, file, content string) (string, bool) {
		overlay := map[string]string{}
		if file != "" {
			overlay[file] = content
		}
		return overlaytest.Run(t, root, "./impl/", "TestHintsImplMatchesModel", overlay, nil, flags...)
	}
	t.Run("control", func(t *testing.T) {
		if out, failed := run(t, "", ""); failed {
			t.Fatalf("TestHintsImplMatchesModel fails on the unpatched implementation:\n%s", out)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	type result struct {
		check string
		steps int
		dur   time.Duration
		ok    bool
		ran   bool
	}
	var mu sync.Mutex
	results := make([]result, len(hintsMutants))
	t.Run("mutants", func(t *testing.T) {
		for i, m := range hintsMutants {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				out, failed := run(t, m.file, patched[i])
				r := result{check: "-", steps: -1, dur: time.Since(start), ok: failed, ran: true}
				if failed {
					if overlaytest.BuildFailure(out) != "" {
						mu.Lock()
						results[i] = result{check: "BUILD FAILED", steps: -1, dur: time.Since(start), ran: true}
						mu.Unlock()
						t.Fatalf("mutant %s does not build; fix its patch:\n%s", m.name, out)
					}
					r.check, r.steps = classifyHints(out)
					t.Logf("caught by %s in %d steps", r.check, r.steps)
				} else {
					t.Errorf("mutant %s survived %s: %s", m.name, strings.Join(flags, " "), m.desc)
				}
				mu.Lock()
				results[i] = r
				mu.Unlock()
			})
		}
	})
	var b strings.Builder
	fmt.Fprintf(&b, "hints-profile catch table (TestHintsImplMatchesModel, %s):\n", strings.Join(flags, " "))
	fmt.Fprintf(&b, "%-38s %-11s %-16s %5s %7s  %s\n", "mutant", "result", "check", "steps", "time", "what it breaks")
	for i, r := range results {
		if !r.ran {
			continue // not selected by -run
		}
		res := "caught"
		if !r.ok {
			res = "NOT CAUGHT"
		}
		fmt.Fprintf(&b, "%-38s %-11s %-16s %5d %6.1fs  %s\n", hintsMutants[i].name, res, r.check, r.steps, r.dur.Seconds(), hintsMutants[i].desc)
	}
	t.Log("\n" + b.String())
}

// classifyHints names the check of rapid's minimal failing case and counts
// the operations of its scenario.
func classifyHints(out string) (string, int) {
	tail := out
	if i := strings.LastIndex(out, "Failed test output:"); i >= 0 {
		tail = out[i:]
	}
	check := "?"
	if m := mutantCheckRE.FindStringSubmatch(tail); m != nil {
		check = m[1]
	} else if strings.Contains(out, "panic") {
		check = "panic"
	}
	steps := -1
	if i := strings.Index(tail, "scenario (impl"); i >= 0 {
		rest := tail[i:]
		if j := strings.Index(rest, "\n        model:"); j >= 0 {
			rest = rest[:j]
		}
		steps = strings.Count(rest, "\n")
	}
	return check, steps
}
