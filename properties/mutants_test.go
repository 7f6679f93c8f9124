package properties

import (
	"github.com/schedq/schedq/internal/overlaytest"
	"os"
	"path/filepath"
	"time"

	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Mutation testing: is TestStateMachine strong enough to notice a broken
// implementation? Each mutant is a textual patch of one file of impl/,
// defined here so that production code carries no mutation switches.
// TestMutantsAreCaught writes the patched file to a temporary directory,
// points `go test -overlay` at it, runs TestStateMachine against it in a
// subprocess and requires that run to fail.
//
// A mutant's old snippet must occur exactly once in its file, so a change
// to the implementation that invalidates a mutant fails this test instead
// of silently testing nothing: adapt the snippet when that happens.
//
// Cost and gating, measured on the shared 2-core machine (load average
// about 10): `go test -race ./properties/` takes 135 to 170 s (it took 138
// and 145 s before the eight rows of the hints generator's plugins and of
// the nominator joined the table), nearly all of it this test (a
// `go test -vet=off` build per mutant, without -race, plus a run until
// rapid finds and shrinks a failure, at most 5 s of shrinking; two run in
// parallel), under the 3 minutes this package may take. With 38 rows,
// `go test -run 'TestStateMachine|TestMutantsAreCaught' ./properties/`
// (no -race) took 242 s on 2026-11-25, load average about 6 to 10; the
// table has 51 rows since (the twelve pod-group rows and a classic gating
// row), and 59 since issue 24 gave every rule of both profiles a row
// (`go test -run '^TestMutantsAreCaught$' ./properties/`: 3m10s on
// 2026-11-25, load average about 10). Which other layers catch each
// rule's rows is TestMutantLayers (layers_test.go, docs/mutants.md). So `make test` skips it (a cold make test was over its 10 minutes with it); `go test -short` skips it for
// quick local iterations, and scripts/verify runs it as a suite of its
// own.
//
// The subprocesses run -rapid.checks=10000: that is a budget, not a cost,
// since rapid stops at the first failure. The hardest row,
// hints-gated-pod-moved-by-unrelated-event, was caught in 20 runs of 20
// after a median of about 580 checks (at most 2587); every other row of
// the hints profile and the nominator in 5 of 5 after at most 443. The
// odds of a miss by chance: a row caught after a median of 580 checks
// catches on a check with probability about ln 2/580 = 1/837 (checks are
// independent draws), so it escapes 10,000 checks with probability about
// exp(-10000/837) = 6e-6, and the easier rows far less: a row NOT
// CAUGHT is a real change (the generator, or a mutant the implementation
// made harmless), never one unlucky run. At make test's 100 checks the
// boundary mutants are caught too (TestBoundaryMutantsAtCICount; the table
// is in doc.go).

type mutant struct {
	name string
	// test is the state machine that must catch the mutant: "" for
	// TestStateMachine (classic profile), hintsMachine for the hints
	// profile's rows.
	test string
	// rule is the id of the one rule of the classic or hints profile the
	// mutant breaks (spec's ids, as the coverage tables cite them): the
	// layer table (layers_test.go) runs every row that names one. The
	// pod-group rows name none; their table is the podgroups machine's.
	rule string
	file string // relative to the module root
	old  string
	new  string
	desc string
	// pkg and tags, for a row that a test of another package catches in a
	// build of its own: the package (default ./properties/) and its build
	// tags. The control runs that test unpatched with the same tags, and
	// checks that it selects a subtest at its pattern's depth: go test
	// anchors each level of -run at both ends, so "TestImpl$/podgroups/G14"
	// selects no scenario named G14-... and its mutant would survive a run
	// that checked nothing.
	pkg, tags string
}

// perturbedConcurrent is the conservation check of conformance/concurrent
// on impl built with -tags schedqperturb (impl/perturb.go: the queue's
// lock yields around every acquire and release): the check that catches
// a lock released between two steps of one operation.
// (The test is anchored as ^TestImpl$/conservation$, so that no other test
// whose name starts with TestImpl runs.)
var perturbedConcurrent = mutant{test: "TestImpl$/conservation", pkg: "./conformance/concurrent/", tags: "schedqperturb"}

// hintsMachine is the state machine of the queueing-hints profile, with
// the standard hint set (schedqtest.HintsConfig). The generator draws the
// hint set's rejecting and pending plugins, the events its hints answer
// (Queue, QueueSkip, an error), pods its PreEnqueue plugins gate and
// updates that ungate them, so each hints row below is caught by it.
const hintsMachine = "TestStateMachineHints"

var mutants = []mutant{
	// The podgroups profile's rows (G1-G11, IG1-IG4): each is caught by
	// the podgroups state machine (podgroups_test.go); the report lists
	// which of its scenarios catch it too.
	// v1.38's group rules (groups=v1.38: G12, G13), which the podgroups
	// machine draws in half its runs.
	{
		name: "pg138-unasked-member-loses-its-gate",
		test: podgroupsMachine,
		file: "impl/queue.go",
		old:  "\t\t\tif d.unasked != nil && d.unasked[i] {\n",
		new:  "\t\t\tif false && d.unasked != nil && d.unasked[i] {\n",
		desc: "G12: the members PreEnqueue stopped before are treated as admitted, so an earlier gate of theirs is cleared",
	},
	{
		name: "pg138-preenqueue-in-key-order",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\tslices.SortFunc(order, func(a, b int) int {\n",
		new:  "\tslices.SortFunc(order[:0], func(a, b int) int {\n",
		desc: "G12: PreEnqueue asks the members in key order, not MemberOrder, so another member gates the group",
	},
	{
		name: "pg138-gated-group-asks-members-without-rejectors",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\t\tif skipping && !m.info.rejected() {\n",
		new:  "\t\tif false && skipping && !m.info.rejected() {\n",
		desc: "G13: a gated group's members without rejectors are asked, and R16 requeues the group for them",
	},
	{
		name: "pg138-group-without-gated-member-stays",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\tif skipping && !sawGated && skipped {\n",
		new:  "\tif false && skipping && !sawGated && skipped {\n",
		desc: "G13: a gated group whose gated member was deleted is not requeued for its members without rejectors",
	},
	// Pre-queueing hints over groups (G14): the podgroups machine draws
	// the setting in half its runs with groups=v1.38, with Fit gating, and
	// plays G14's two sequences from a new gated group (schedqtest's
	// gateNewGroup, narrowOverGroup); at make test's 100 checks it caught
	// each row in 20 of 20 runs (docs/mutants.md), and the G14 scenarios
	// catch both too.
	{
		name: "pg138-narrowed-move-evaluates-every-group",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\tif n != nil && !n.AllPods {\n\t\t// G14: only the parked entities",
		new:  "\tif false && n != nil && !n.AllPods {\n\t\t// G14: only the parked entities",
		desc: "G14: a narrowed move request evaluates every parked group, not only those of the named pods",
	},
	{
		name: "pg138-member-asks-a-plugin-that-did-not-name-it",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "best = max(best, g.narrowedStrategy(&m.info, occ, n))",
		new:  "best = max(best, g.narrowedStrategy(&m.info, occ, nil))",
		desc: "G14, R22: a member of an evaluated group asks a narrowed plugin that did not name it",
	},
	{
		name: "pg-pop-leaves-a-member-queued",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\tfor _, m := range ent.members {\n\t\tm.info.Attempts++",
		new:  "\tfor _, m := range ent.members[:len(ent.members)-1] {\n\t\tm.info.Attempts++",
		desc: "G3, IG2: Pop of a group leaves its last member behind, a group partly in flight",
	},
	{
		name: "pg-pop-counts-no-member-attempt",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\t\tm.info.Attempts++\n\t\ttoken, _ := q.p.popped(m)",
		new:  "\t\ttoken, _ := q.p.popped(m)",
		desc: "G3: Pop of a group counts the attempt for the group but not for its members",
	},
	{
		name: "pg-failed-member-skips-pending",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\tcase g.inCycle[k]:\n\t\tg.wait(e, inPending)",
		new:  "\tcase false && g.inCycle[k]:\n\t\tg.wait(e, inPending)",
		desc: "G4, G2: a member failing (or added) while its group's cycle is open forms a second entity instead of waiting pending (upstream's cleared lastPoppedEntity)",
	},
	{
		name: "pg-attempt-keeps-the-cycle-open",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\tdelete(g.inCycle, k)\n\tpending := g.waiters(k, inPending)",
		new:  "\tpending := g.waiters(k, inPending)",
		desc: "G5, IG3: the end of a group's cycle does not close it, so members failing later wait pending for ever",
	},
	{
		name: "pg-backoff-ignores-group-size",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "q.cfg.GroupBackoffExpiry(&ent.params.HintFields, len(pending), now)",
		new:  "q.cfg.GroupBackoffExpiry(&ent.params.HintFields, 1, now)",
		desc: "G6: a group backs off as a single pod, its maximum not multiplied by the square root of its size",
	},
	{
		name: "pg-success-keeps-counts",
		// The podgroups state machine needs a rejected group popped again
		// and then scheduled: at 10,000 checks it once caught this row in
		// one of two fresh-clone runs of make verify. Since the drawing
		// retries groups (schedqtest's RetriedGroups: knownGroup,
		// groupBackoffRunsOut, retriedGroupSucceeds) it caught it in 40 of
		// 40 runs of make test's 100 checks (docs/mutants.md); the G5
		// scenario that plays the sequence catches it too.
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\t\tent.params.UnschedulableCount, ent.params.ConsecutiveErrorsCount = 0, 0\n",
		new:  "",
		desc: "G5: a successful cycle does not reset the group's counts",
	},
	{
		name: "pg-success-timestamp-always-now",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\t\tif !slices.ContainsFunc(pending, func(e *entry) bool { return attemptedMember(gInfo, e.info.Pod.UID) }) {",
		new:  "\t\tif true {",
		desc: "G5: after a successful cycle a member that failed in it loses the group's place in activeQ (Timestamp becomes now)",
	},
	{
		name: "pg-activate-ignores-backoffQ-group",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\tcase ent.place == inBackoffQ:\n\t\treturn decision{ent: ent, to: inActiveQ}\n",
		new:  "",
		desc: "G7: Activate of a member of a group in backoffQ leaves the group backing off",
	},
	{
		name: "pg-delete-member-drops-the-group",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\t\te.loc = nowhere\n\t\treturn g.replace(ent, now)",
		new:  "\t\te.loc = nowhere\n\t\tdelete(g.entities, k)",
		desc: "G8: Delete of one member takes its whole group's entity out of the queue, the other members lost",
	},
	{
		name: "pg-update-may-change-the-group",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\tif oldPod.Group != newPod.Group || held != newPod.Group {",
		new:  "\tif false {",
		desc: "G9: an Update that moves a member to another group is accepted",
	},
	{
		name: "pg-podgroup-add-leaves-members-waiting",
		test: podgroupsMachine,
		file: "impl/podgroups.go",
		old:  "\tfor _, e := range g.waiters(k, inIncomplete) {\n\t\tq.put(e, move{to: inEntity}, now)",
		new:  "\tfor _, e := range []*entry(nil) {\n\t\tq.put(e, move{to: inEntity}, now)",
		desc: "G11: AddPodGroup does not release the members waiting for the object",
	},
	{
		name: "pg-flush-backoff-skips-groups",
		test: podgroupsMachine,
		file: "impl/queue.go",
		old:  "range q.p.backedOffGroups(now) {",
		new:  "range q.p.backedOffGroups(now)[:0] {",
		desc: "G10, R5h: the backoffQ flush releases pods alone but never a group",
	},
	// The pre-queueing rows (R20-R22, v1.38's setting of the hints
	// profile): drawHintsConfig gives a third of its configs the setting,
	// with node objects and assigned pods that name pods.
	{
		name: "prequeue-error-names-no-pod",
		rule: "R20",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "\t\t\tif !ok || res.AllPods {\n",
		new:  "\t\t\tif (ok || !ok) && res.AllPods {\n",
		desc: "R20: a pre-queueing hint that fails (or has none) narrows its plugin to no pod instead of every pod",
	},
	{
		name: "prequeue-named-only-despite-all-pods",
		rule: "R21",
		test: hintsMachine,
		file: "impl/queue.go",
		old:  "\tif n != nil && !n.AllPods {\n",
		new:  "\tif n != nil && len(n.Named) > 0 {\n",
		desc: "R21: a request evaluates only the named pods even when some plugin narrowed nothing, so that plugin's pods stay parked",
	},
	{
		name: "prequeue-narrowed-plugin-asked-about-every-pod",
		rule: "R22",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "\t\t\tif key != \"\" && !n.Asks(plugin, key) {\n",
		new:  "\t\t\tif key != \"\" && false {\n",
		desc: "R22: a narrowed plugin's queueing hints are asked about pods it did not name, so they move",
	},
	{
		name: "hints-event-not-recorded-in-flight",
		rule: "R15",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "func (h *hints) record(occ spec.Occurrence) {\n\tif h.head < len(h.list) {",
		new:  "func (h *hints) record(occ spec.Occurrence) {\n\tif false {",
		desc: "R15: a move request while pods are in flight is not recorded, so their failures miss it (lost event)",
	},
	{
		name: "hints-done-trims-events-others-need",
		rule: "R12h",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "\t\th.list[i].dead = true\n\t}\n\tfor h.head < len(h.list)",
		new:  "\t\th.list[i].dead = true\n\t\tfor j := i + 1; j < len(h.list) && h.list[j].isRecord(); j++ {\n\t\t\th.list[j].pod, h.list[j].dead = e.info.Pod, true\n\t\t}\n\t}\n\tfor h.head < len(h.list)",
		desc: "R12h: leaving flight drops the records after the pod's own marker, which pods popped before it still need",
	},
	{
		name: "hints-replay-from-list-front",
		rule: "R15",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "for j := i + 1; j < len(h.list); j++ {",
		new:  "for j := h.head; j < len(h.list); j++ {",
		desc: "R15.4: a failing pod replays events recorded before its own Pop",
	},
	{
		name: "hints-pop-from-backoffQ-takes-error-pods",
		rule: "R2h",
		test: hintsMachine,
		file: "impl/window.go",
		old:  "\tif e.info.rejected() {\n\t\tq.popQ.push(q.windowSlot(e))",
		new:  "\tif true {\n\t\tq.popQ.push(q.windowSlot(e))",
		desc: "R2h: Pop from backoffQ takes a pod no plugin rejected (an error retry) early",
	},
	{
		name: "hints-activate-in-flight-not-recorded",
		rule: "R8h",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "if e != nil && e.loc == inFlight && e.info.Pod.UID == pod.UID && h.markerOf(e, pod.UID) >= 0 {",
		new:  "if false {",
		desc: "R8h: Activate of an in-flight pod is forgotten, so its failure parks it",
	},
	{
		name: "hints-pop-clears-rejectors",
		rule: "R2h",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "\treturn token, false\n",
		new:  "\treturn token, true\n",
		desc: "R2h: Pop clears the rejectors, as classic Pop (and v1.33) does",
	},
	{
		name: "hints-in-flight-update-queues-a-copy",
		rule: "R9h",
		test: hintsMachine,
		file: "impl/queue.go",
		old:  "\t\tq.p.updatedInFlight(e, oldPod, newPod, change)\n",
		new:  "\t\tq.p.updatedInFlight(e, oldPod, newPod, change)\n\t\tq.pushActiveQ(e)\n",
		desc: "R9h: an Update of an in-flight pod queues it in activeQ (upstream v1.33's second copy) instead of only recording it",
	},
	{
		name: "hints-wrong-count-drives-backoff",
		rule: "R3h",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "\t\th.UnschedulableCount++\n\t\th.ConsecutiveErrorsCount = 0\n",
		new:  "\t\th.UnschedulableCount++\n",
		desc: "R3h/R7h: a verdict does not reset ConsecutiveErrorsCount, so the error count keeps driving the backoff",
	},
	{
		name: "hints-expiry-not-aligned",
		rule: "R7h",
		test: hintsMachine,
		file: "impl/podinfo.go",
		old:  "\tf := e.info.full()\n\treturn q.cfg.IsBackingOff(&f, now)",
		new:  "\tf := e.info.full()\n\tif e.info.hints != nil {\n\t\td := spec.HintsBackoffDuration(f.BackoffCount(), q.cfg.PodInitialBackoffDuration, q.cfg.PodMaxBackoffDuration)\n\t\treturn d > 0 && !f.Timestamp.Add(d).Before(now)\n\t}\n\treturn q.cfg.IsBackingOff(&f, now)",
		desc: "R7h: backoff ends at the exact instant, not at the end of its one-second window",
	},
	{
		name: "hints-hint-error-is-skip",
		rule: "R16",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "return err != nil || hint == spec.HintQueue",
		new:  "return err == nil && hint == spec.HintQueue",
		desc: "R16: a hint that errs counts as QueueSkip instead of Queue, stranding the pod",
	},
	{
		name: "hints-pending-queue-not-immediate",
		rule: "R16",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "\t\t\t\tif pending.Has(plugin) {\n",
		new:  "\t\t\t\tif false {\n",
		desc: "R16: a Queue from a pending plugin waits out the backoff instead of going to activeQ",
	},
	{
		name: "hints-gated-pod-moved-by-unrelated-event",
		rule: "R4h",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "if g := e.info.gating(); g != \"\" && !h.cfg.GatingEventMatches(g, occ.Event) {",
		new:  "if g := e.info.gating(); g != \"\" && false {",
		desc: "R4h: a gated pod is re-examined by an event its gating plugin did not register",
	},
	{
		name: "hints-leftover-ignores-flushTimestamp",
		rule: "R6h",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "if e.info.hints != nil && e.info.hints.FlushTimestamp.After(last) {",
		new:  "if false {",
		desc: "R6h: a gated pod the leftover flush just took is taken again at every flush",
	},
	{
		name: "hints-backoffQ-priority-update-not-resorted",
		rule: "R9h",
		test: hintsMachine,
		file: "impl/entry.go",
		old:  "\tif q.windowed {\n\t\tq.backoffQ.drop(e)\n\t\tq.pushBackoffQ(e)\n\t}\n}",
		new:  "}",
		desc: "R2h/R9h: a priority update of a backoffQ pod leaves its place in the window order",
	},
	{
		name: "nominator-delete-keeps-nomination",
		rule: "R18",
		file: "impl/queue.go",
		old:  "nominated := q.nom.remove(pod.UID) // R18",
		new:  "nominated := false // R18",
		desc: "R18: Delete forgets to drop the pod's nomination (and fails for a pod only nominated)",
	},
	{
		name: "nominator-lists-stale-version",
		rule: "R18",
		file: "impl/nominator.go",
		old:  "\t\t\tp = e.info.Pod\n",
		new:  "",
		desc: "R18: NominatedPodsForNode returns a pod as it was nominated, not as the queue now holds it",
	},
	{
		name: "nominator-update-drops-nomination",
		rule: "R18",
		file: "impl/nominator.go",
		old:  "\tif oldPod.NominatedNodeName == \"\" && newPod.NominatedNodeName == \"\" {\n",
		new:  "\tif false {\n",
		desc: "R18: an Update of a queued pod drops the queue's own nomination when neither version carries one",
	},
	{
		name: "shortcut-compares-with->",
		rule: "R3",
		file: "impl/classic.go",
		old:  "if v.moveRequestCycle() >= podSchedulingCycle || len(e.info.UnschedulablePlugins) == 0 {",
		new:  "if v.moveRequestCycle() > podSchedulingCycle || len(e.info.UnschedulablePlugins) == 0 {",
		desc: "R3: a pod failing in the very cycle of a move request is parked in unschedulablePods (lost wake-up)",
	},
	{
		name: "leftover-flush-keeps-moveRequestCycle",
		rule: "R6",
		file: "impl/classic.go",
		old:  "func (*classic) requested(spec.Occurrence) bool { return true }",
		new:  "func (*classic) requested(occ spec.Occurrence) bool { return occ.Event != spec.EventUnschedulableTimeout }",
		desc: "R6: the leftover flush moves pods but is not recorded as a move request",
	},
	{
		name: "backoff-expiry-by-plain-shift",
		rule: "R7",
		file: "impl/entry.go",
		old:  "if expiry := q.expiry(e); expiry.IsZero() {",
		new:  "if expiry := e.info.Timestamp.Add(min(q.cfg.PodInitialBackoffDuration<<uint(max(e.info.Attempts-1, 0)), q.cfg.PodMaxBackoffDuration)); expiry.IsZero() {",
		desc: "R7: the backoffQ key is initial<<(attempts-1), which overflows for large attempts and misorders backoffQ",
	},
	{
		name: "add-leaves-unschedulable-pod",
		rule: "R1",
		file: "impl/queue.go",
		old:  "\tif e != nil {\n\t\tfrom = e.loc\n\t}\n",
		new:  "\tif e != nil {\n\t\tif e.loc == inUnschedulablePods {\n\t\t\treturn nil\n\t\t}\n\t\tfrom = e.loc\n\t}\n",
		desc: "R1: Add of a pod parked in unschedulablePods leaves it there",
	},
	{
		name: "backoff-flush-releases-at-expiry",
		rule: "R5",
		file: "impl/queue.go",
		old:  "for q.backoffQ.len() > 0 && !q.backingOff(q.backoffQ.min(), now) {",
		new:  "for q.backoffQ.len() > 0 && !q.expiry(q.backoffQ.min()).After(now) {",
		desc: "R5/R7: a pod whose expiry equals now is released one tick early (the pre-v1.33 boundary)",
	},
	{
		name: "requeue-at-expiry-skips-backoffQ",
		rule: "R7",
		file: "impl/classic.go",
		old:  "if v.backingOff(e) {\n\t\treturn move{to: inBackoffQ",
		new:  "if v.q.expiry(e).After(v.now) {\n\t\treturn move{to: inBackoffQ",
		desc: "R4/R7: a move sends a pod whose expiry equals now to activeQ (expiry == now treated as completed)",
	},
	{
		name: "pop-does-not-advance-schedulingCycle",
		rule: "R2",
		file: "impl/queue.go",
		old:  "\te.info.Attempts++\n\tq.schedulingCycle++\n",
		new:  "\te.info.Attempts++\n",
		desc: "R2: Pop leaves schedulingCycle alone",
	},
	{
		name: "moveall-ignores-preCheck",
		rule: "R4",
		file: "impl/queue.go",
		old:  "return preCheck == nil || preCheck(e.info.Pod)",
		new:  "return true",
		desc: "R4: MoveAllToActiveOrBackoffQueue moves pods the preCheck rejects",
	},
	{
		name: "delete-ignores-backoffQ-pod",
		rule: "R10",
		file: "impl/queue.go",
		old:  "\t\treturn fmt.Errorf(\"%w: Delete of %s\", spec.ErrPodNotFound, pod.Key())\n\t}\n",
		new:  "\t\treturn fmt.Errorf(\"%w: Delete of %s\", spec.ErrPodNotFound, pod.Key())\n\t}\n\tif e.loc == inBackoffQ {\n\t\treturn nil\n\t}\n",
		desc: "R10: Delete of a pod in backoffQ succeeds but leaves it there",
	},
	{
		name: "delete-leaves-ghost-in-backoffQ-heap",
		rule: "R10",
		file: "impl/queue.go",
		old:  "\tq.detach(e)\n\tq.untrack(e)\n\tq.freeEntry(e)\n}\n\n// AssignedPodAdded",
		new:  "\tif e.loc != inBackoffQ {\n\t\tq.detach(e)\n\t}\n\tq.untrack(e)\n}\n\n// AssignedPodAdded",
		desc: "R10: Delete forgets a backoffQ pod's index entry but leaves it in the heap, to resurface on a flush",
	},
	{
		name: "event-of-no-interest-sets-moveRequestCycle",
		rule: "R4",
		file: "impl/queue.go",
		old:  "if !q.p.ofInterest(occ.Event) {\n\t\treturn\n\t}",
		new:  "if !q.p.ofInterest(occ.Event) {\n\t\tq.moveRequestCycle = q.schedulingCycle\n\t\treturn\n\t}",
		desc: "R4: an event no plugin registered for still counts as a move request",
	},
	{
		name: "activate-ignores-in-flight-pod",
		rule: "R8",
		file: "impl/classic.go",
		old:  "func (*classic) activatedOther(*entry, *spec.Pod) bool { return true }",
		new:  "func (*classic) activatedOther(e *entry, _ *spec.Pod) bool { return e == nil || e.loc != inFlight }",
		desc: "R8: activating a pod in flight does not set moveRequestCycle, so its failure parks it",
	},
	{
		name: "leftover-age-inclusive",
		rule: "R6",
		file: "impl/classic.go",
		old:  "return v.now.Sub(e.info.Timestamp) > c.cfg.PodMaxInUnschedulablePodsDuration",
		new:  "return v.now.Sub(e.info.Timestamp) >= c.cfg.PodMaxInUnschedulablePodsDuration",
		desc: "R6: a pod exactly PodMaxInUnschedulablePodsDuration old already counts as leftover",
	},
	{
		name: "update-requeues-on-irrelevant-change",
		rule: "R9",
		file: "impl/classic.go",
		old:  "if change != nil && !change.Relevant || change == nil && !spec.IsPodUpdated(oldPod, newPod) {",
		new:  "if change != nil && !change.Relevant || change == nil && oldPod == newPod {",
		desc: "R9: a status or resourceVersion update moves an unschedulable pod",
	},
	{
		name: "update-does-not-resort-activeQ",
		rule: "R9",
		file: "impl/queue.go",
		old:  "\t\t\tq.resortActiveQ(e)\n",
		new:  "",
		desc: "R9/I5: a priority update of a pod in activeQ does not re-sort the heap",
	},
	{
		name: "requeue-ignores-backoff",
		rule: "R4",
		file: "impl/classic.go",
		old:  "if v.backingOff(e) {\n\t\treturn move{to: inBackoffQ",
		new:  "if e.info.Attempts < 0 {\n\t\treturn move{to: inBackoffQ",
		desc: "R4: a move request sends a still backing-off pod straight to activeQ",
	},
	{
		name: "topology-spread-ignores-namespace",
		rule: "R11",
		file: "impl/classic.go",
		old:  "e.info.UnschedulablePlugins.Has(spec.PluginPodTopologySpread) && p.Namespace == assigned.Namespace",
		new:  "e.info.UnschedulablePlugins.Has(spec.PluginPodTopologySpread)",
		desc: "R11: an assigned pod in any namespace wakes pods PodTopologySpread rejected",
	},
	{
		name: "classic-add-skips-PreEnqueue",
		rule: "R17",
		file: "impl/classic.go",
		old:  "func (c *classic) added(e *entry, from place, update bool) move {\n\tm := c.admit(&e.info, inActiveQ)",
		new:  "func (c *classic) added(e *entry, from place, update bool) move {\n\tm := move{to: inActiveQ}",
		desc: "R17 (classic): Add puts a pod a PreEnqueue plugin refuses in activeQ (v1.33.13 gates it; schedq's classic profile once let every gated pod through)",
	},
	{
		name: "classic-backoffQ-exit-skips-PreEnqueue",
		rule: "R17",
		file: "impl/classic.go",
		old:  "func (c *classic) fromBackoffQ(e *entry, why reason) move {\n\tm := c.admit(&e.info, inActiveQ)",
		new:  "func (c *classic) fromBackoffQ(e *entry, why reason) move {\n\tm := move{to: inActiveQ}",
		desc: "R5/R8/R17 (classic): a pod leaving backoffQ for activeQ (flush, Activate) skips PreEnqueue, so a pod gated by an update while it backed off is popped",
	},
	// Caught only with genActivate's steering onto a gated pod that still
	// backs off: 10 runs of 10 at -rapid.checks=10000, after 21 to 643
	// checks (median about 160); without it 3 runs of 6 survived 10,000
	// checks, the others were caught after 2484, 2721 and 9735.
	{
		name: "classic-moves-examine-SchedulingGates-pods",
		rule: "R17",
		file: "impl/classic.go",
		old:  "\tif skippedWhileGated(&e.info) {\n\t\treturn move{}\n\t}\n",
		new:  "\tif false {\n\t\treturn move{}\n\t}\n",
		desc: "R17 (classic): a move request examines a pod SchedulingGates gates; it shows only while the pod backs off (requeued to backoffQ, where PreEnqueue does not run; scenario gated/a-pod-gated-while-backing-off-is-left-out-of-moves)",
	},
	{
		name: "object-dropped-on-replay",
		rule: "R19",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "\t\th.list = append(h.list, flightEntry{occ: occ})\n",
		new:  "\t\th.list = append(h.list, flightEntry{occ: spec.Occurrence{Event: occ.Event, Old: occ.Old, New: occ.New}})\n",
		desc: "R15/R19: the in-flight record keeps the event but loses its caller objects, so a replay shows the hints no node",
	},
	{
		name: "caller-event-ignored",
		rule: "R19",
		test: hintsMachine,
		file: "impl/queue.go",
		old:  "\tif err := change.Validate(); err != nil {\n\t\treturn err\n\t}\n",
		new:  "\tif err := change.Validate(); err != nil {\n\t\treturn err\n\t}\n\tchange = nil\n",
		desc: "R9h/R19: UpdateWithChange ignores the caller's verdict and derives the update's events from the fields Pod models",
	},
	// The rows below break the rules no other row broke alone (issue 24:
	// a mutant for each rule of both profiles). Where the code is shared
	// by the profiles, the row keeps to one of them by the queue's own
	// field windowed (set in the hints profile only).
	{
		name: "done-keeps-the-pod-in-flight",
		rule: "R12",
		file: "impl/queue.go",
		old:  "\t\treturn fmt.Errorf(\"%w: Done of UID %q\", spec.ErrNotInFlight, uid)\n\t}\n\te.out = nil // Done lets go of the copy (entry.go: handedBack)\n\tq.drop(e)\n",
		new:  "\t\treturn fmt.Errorf(\"%w: Done of UID %q\", spec.ErrNotInFlight, uid)\n\t}\n\tif q.windowed {\n\t\te.out = nil\n\t\tq.drop(e)\n\t}\n",
		desc: "R12 (classic): Done returns nil but leaves the pod in flight",
	},
	{
		name: "classic-pop-after-close-hands-out-pods",
		rule: "R13",
		file: "impl/queue.go",
		old:  "\t\tif q.closed {\n\t\t\treturn nowhere, spec.ErrClosed\n\t\t}\n\t\tif from := q.p.popFrom(view{q: q}); from != nowhere {\n\t\t\treturn from, nil\n\t\t}\n\t\tif ctx != nil {",
		new:  "\t\tif q.closed && (q.windowed || q.activeQ.len() == 0) {\n\t\t\treturn nowhere, spec.ErrClosed\n\t\t}\n\t\tif from := q.p.popFrom(view{q: q}); from != nowhere {\n\t\t\treturn from, nil\n\t\t}\n\t\tif ctx != nil {",
		desc: "R13 (classic): Pop after Close still hands out the pods of activeQ (only an empty queue returns ErrClosed)",
	},
	{
		name: "hints-pop-after-close-hands-out-pods",
		rule: "R13h",
		test: hintsMachine,
		file: "impl/queue.go",
		old:  "\t\tif q.closed {\n\t\t\treturn nowhere, spec.ErrClosed\n\t\t}\n\t\tif from := q.p.popFrom(view{q: q}); from != nowhere {\n\t\t\treturn from, nil\n\t\t}\n\t\tif ctx != nil {",
		new:  "\t\tif q.closed && !(q.windowed && q.p.popFrom(view{q: q}) != nowhere) {\n\t\t\treturn nowhere, spec.ErrClosed\n\t\t}\n\t\tif from := q.p.popFrom(view{q: q}); from != nowhere {\n\t\t\treturn from, nil\n\t\t}\n\t\tif ctx != nil {",
		desc: "R13h: in the hints profile Pop after Close still hands out a pod of activeQ or backoffQ",
	},
	{
		name: "hints-add-skips-PreEnqueue",
		rule: "R1h",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "func (h *hints) added(e *entry, from place, _ bool) move {\n\tm := h.admit(&e.info, inActiveQ)",
		new:  "func (h *hints) added(e *entry, from place, _ bool) move {\n\tm := move{to: inActiveQ}",
		desc: "R1h: Add puts a pod a PreEnqueue plugin refuses in activeQ",
	},
	{
		name: "hints-backoffQ-exit-runs-PreEnqueue",
		rule: "R5h",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "func (h *hints) fromBackoffQ(_ *entry, why reason) move { return move{to: inActiveQ, why: why} }",
		new:  "func (h *hints) fromBackoffQ(e *entry, why reason) move {\n\tm := h.admit(&e.info, inActiveQ)\n\tif m.gate == \"\" {\n\t\tm.why = why\n\t}\n\treturn m\n}",
		desc: "R5h: a pod leaving backoffQ runs PreEnqueue again (v1.33-v1.34), so a pod gated by an update while it backed off is parked instead of entering activeQ",
	},
	{
		name: "hints-delete-in-flight-keeps-marker",
		rule: "R10h",
		test: hintsMachine,
		file: "impl/queue.go",
		old:  "\tq.drop(e)\n\treturn nil\n}\n\n// drop takes",
		new:  "\tif e.loc == inFlight {\n\t\tq.detach(e)\n\t\tq.untrack(e)\n\t\treturn nil\n\t}\n\tq.drop(e)\n\treturn nil\n}\n\n// drop takes",
		desc: "R10h: Delete of an in-flight pod leaves its marker in the in-flight list, which then keeps recording events (I7)",
	},
	{
		name: "hints-assigned-pod-prefiltered",
		rule: "R11h",
		test: hintsMachine,
		file: "impl/hints.go",
		old:  "func (h *hints) assigned(*spec.Pod, spec.ClusterEvent) func(*entry) bool { return everyPod }",
		new:  "func (h *hints) assigned(*spec.Pod, spec.ClusterEvent) func(*entry) bool {\n\treturn func(e *entry) bool { return len(e.info.Pod.RequiredAffinityTerms) > 0 }\n}",
		desc: "R11h: an assigned-pod event reaches only the pods with a required affinity term (the classic pre-filter), not every unschedulable pod for the hints to decide",
	},
	{
		name: "requeue-in-flight-mark-cleared-late",
		test: perturbedConcurrent.test, pkg: perturbedConcurrent.pkg, tags: perturbedConcurrent.tags,
		file: "impl/queue.go",
		old:  "\tq.put(e, q.p.failed(view{q, now}, e, flightUID, podSchedulingCycle), now)\n\treturn nil\n}",
		new:  "\tq.put(e, q.p.failed(view{q, now}, e, flightUID, podSchedulingCycle), now)\n\tloc := e.loc\n\te.loc = inFlight\n\tq.unlock()\n\tq.mu.Lock()\n\te.loc = loc\n\treturn nil\n}",
		desc: "I1, I4 under concurrency: a failed pod is back in its queue while still marked in flight, and the mark is cleared in a second critical section (the lock released between the two steps), clobbering whatever another operation did with the pod meanwhile. A narrow race: the conservation check on the perturbed build caught it in 50 of 50 runs (the unpatched queue passed 33 of 33 there), the ordinary build in 0 of 40",
	},
	{
		name: "classic-move-with-objects-dropped",
		rule: "R19",
		file: "impl/queue.go",
		old:  "\tq.mu.Lock()\n\tdefer q.unlock()\n\tq.moveAll(occ, preCheck)\n\treturn nil\n",
		new:  "\tq.mu.Lock()\n\tdefer q.unlock()\n\tif !q.windowed && occ.NewObject != nil {\n\t\treturn nil\n\t}\n\tq.moveAll(occ, preCheck)\n\treturn nil\n",
		desc: "R19 (classic): a move request whose event carries a caller object is dropped (the queue reads the caller's objects, which change no classic answer)",
	},
}

// mutantResult is one row of the catch table.
type mutantResult struct {
	name, check string
	caught      bool
	steps       int // steps of rapid's minimal sequence, -1 if unknown
	dur         time.Duration
}

var (
	checkRE     = regexp.MustCompile(`CHECK\[([^\]]+)\]`)
	failedHdr   = regexp.MustCompile(`\[rapid\] (failed|panic) after \d+ tests`)
	mutantFlags = []string{"-rapid.checks=10000", "-rapid.nofailfile", "-rapid.shrinktime=5s"}
)

func TestMutantsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs TestStateMachine once per mutant")
	}
	root, patched := patchMutants(t)
	run := func(t *testing.T, m mutant, overlay map[string]string, flags ...string) (string, bool) {
		if m.pkg != "" {
			return overlaytest.Run(t, root, m.pkg, m.test, overlay, nil, append([]string{"-tags=" + m.tags}, flags...)...)
		}
		return runOverlay(t, root, m.test, overlay, mutantFlags...)
	}

	// The control: the unpatched implementation must pass, or every mutant
	// would be "caught" for nothing.
	t.Run("control", func(t *testing.T) {
		if out, failed := run(t, mutant{test: "(TestStateMachine|" + hintsMachine + ")"}, nil); failed {
			t.Fatalf("TestStateMachine or %s fails on the unpatched implementation:\n%s", hintsMachine, out)
		}
		// Each test of another package a row names (perturbedConcurrent's
		// among them), once: it passes unpatched and selects a test at its
		// pattern's depth.
		ran := map[mutant]bool{}
		for _, m := range mutants {
			c := mutant{test: m.test, pkg: m.pkg, tags: m.tags}
			if m.pkg == "" || ran[c] {
				continue
			}
			ran[c] = true
			if out, failed := run(t, c, nil, "-v"); failed || !selectsAtDepth(out, m.test) {
				t.Fatalf("%s of %s -tags %q (mutant %s) fails on the unpatched implementation or selects no test at its pattern's depth (failed=%v):\n%s",
					m.test, m.pkg, m.tags, m.name, failed, out)
			}
		}
	})
	if t.Failed() {
		t.FailNow()
	}

	var mu sync.Mutex
	results := make([]mutantResult, len(mutants))
	t.Run("mutants", func(t *testing.T) {
		for i, m := range mutants {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				out, failed := run(t, m, map[string]string{m.file: patched[m.name]})
				r := mutantResult{name: m.name, caught: failed, steps: -1, dur: time.Since(start)}
				if failed {
					if bad := buildFailure(out); bad != "" {
						t.Fatalf("mutant %s does not build; fix its patch:\n%s", m.name, bad)
					}
					r.check, r.steps = classify(out)
				} else {
					t.Errorf("mutant %s survived %s: %s", m.name, strings.Join(mutantFlags, " "), m.desc)
				}
				if failed && r.check == "?" {
					t.Logf("unclassified failure output:\n%s", out)
				} else if failed {
					t.Logf("caught by %s; rapid's minimal sequence:\n%s", r.check, minimalSequence(out))
				}
				mu.Lock()
				results[i] = r
				mu.Unlock()
			})
		}
	})

	var b strings.Builder
	fmt.Fprintf(&b, "catch table (%s):\n", strings.Join(mutantFlags, " "))
	fmt.Fprintf(&b, "%-44s %-11s %-16s %5s %7s\n", "mutant", "result", "check", "steps", "time")
	for _, r := range results {
		if r.name == "" {
			continue
		}
		res, steps := "caught", "-"
		if !r.caught {
			res = "NOT CAUGHT"
		}
		if r.steps >= 0 {
			steps = strconv.Itoa(r.steps)
		}
		fmt.Fprintf(&b, "%-44s %-11s %-16s %5s %6.1fs\n", r.name, res, r.check, steps, r.dur.Seconds())
	}
	t.Log("\n" + b.String())
}

// patchMutants returns the module root and each mutant's patched file, by
// mutant name. Every patch must apply exactly once before anything runs.
func patchMutants(t *testing.T) (root string, patched map[string]string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	patched = make(map[string]string, len(mutants))
	for _, m := range mutants {
		src, err := os.ReadFile(filepath.Join(root, m.file))
		if err != nil {
			t.Fatalf("mutant %s: %v", m.name, err)
		}
		if n := strings.Count(string(src), m.old); n != 1 {
			t.Errorf("mutant %s: its old snippet occurs %d times in %s, want exactly once; adapt the mutant to the implementation:\n%s",
				m.name, n, m.file, m.old)
			continue
		}
		patched[m.name] = strings.Replace(string(src), m.old, m.new, 1)
	}
	if t.Failed() {
		t.FailNow()
	}
	return root, patched
}

// runOverlay runs test (TestStateMachine if empty) of properties in a `go
// test` of its own, with the files of overlay (module-relative path ->
// content) replacing the originals, and returns its output and whether it
// failed. The subprocess tests the implementation, whatever this run's
// subject.
func runOverlay(t *testing.T, root, test string, overlay map[string]string, flags ...string) (out string, failed bool) {
	t.Helper()
	if test == "" {
		test = "TestStateMachine"
	}
	return overlaytest.Run(t, root, "./properties/", test, overlay, []string{subjectEnv + "="}, flags...)
}

// selectsAtDepth reports whether go test -v output shows a test that
// passed at the depth of the -run pattern test (its '/'-separated levels).
func selectsAtDepth(out, test string) bool {
	depth := strings.Count(test, "/") + 1
	for _, line := range strings.Split(out, "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "--- PASS: ")
		if f := strings.Fields(name); ok && len(f) > 0 && strings.Count(f[0], "/")+1 >= depth {
			return true
		}
	}
	return false
}

// buildFailure returns the compiler's complaint if the run failed to build.
func buildFailure(out string) string { return overlaytest.BuildFailure(out) }

// classify names the check that failed in rapid's minimal failing case and
// counts its operations (a rapid action may log two: a tick and the flush
// right after it).
func classify(out string) (check string, steps int) {
	steps = -1
	check = "?"
	tail := out
	if loc := failedHdr.FindStringIndex(out); loc != nil {
		tail = out[loc[0]:]
	}
	if m := checkRE.FindStringSubmatch(tail); m != nil {
		check = m[1]
	} else if strings.Contains(tail, "[rapid] panic after") {
		check = "panic"
	} else if strings.Contains(out, "panic: test timed out") || strings.Contains(out, "killed: 5 minute limit") {
		check = "timeout"
	}
	if i := strings.Index(tail, "Failed test output:"); i >= 0 {
		steps = 0
		for _, m := range stepLine.FindAllStringSubmatch(tail[i:], -1) {
			if strings.HasPrefix(m[1], "#") {
				steps++
			}
		}
	}
	return check, steps
}

// stepLine is the harness's log line of one operation: "#n operation".
var stepLine = regexp.MustCompile(`(?m)^\s*\S+\.go:\d+: (#\d+ .*|CHECK\[.*)$`)

// minimalSequence extracts the operations of rapid's minimal failing case,
// and the failed check, from the subprocess output.
func minimalSequence(out string) string {
	i := strings.Index(out, "Failed test output:")
	if i < 0 {
		return "(not found)"
	}
	var b strings.Builder
	for _, m := range stepLine.FindAllStringSubmatch(out[i:], -1) {
		b.WriteString("    " + m[1] + "\n")
	}
	return b.String()
}

// boundaryMutants are the mutants that get an R7 or R6 boundary wrong by
// one comparison: they survive unless a clock step lands exactly on an
// expiry or a leftover limit (internal/boundary).
var boundaryMutants = []string{"backoff-flush-releases-at-expiry", "requeue-at-expiry-skips-backoffQ", "leftover-age-inclusive"}

// boundarySeedsEnv, if set to N, makes TestBoundaryMutantsAtCICount run.
const boundarySeedsEnv = "SCHEDQ_BOUNDARY_SEEDS"

// TestBoundaryMutantsAtCICount measures how often TestStateMachine at the
// CI check count (rapid's default 100 checks, as make test runs it)
// catches each boundary mutant, over N seeds (rapid.seed 1..N), and
// fails if one is caught in less than 95% of them. It builds one test binary per mutant
// and runs it N times, so it runs only when asked:
//
//	SCHEDQ_BOUNDARY_SEEDS=20 go test -run TestBoundaryMutantsAtCICount -v ./properties/
//
// The last table is in doc.go.
func TestBoundaryMutantsAtCICount(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(boundarySeedsEnv))
	if n <= 0 {
		t.Skipf("set %s=N to measure the boundary mutants over N seeds", boundarySeedsEnv)
	}
	root, patched := patchMutants(t)
	file := map[string]string{}
	for _, m := range mutants {
		file[m.name] = m.file
	}
	type row struct {
		name          string
		caught, steps int
		dur           time.Duration
	}
	rows := make([]row, len(boundaryMutants))
	for i, name := range boundaryMutants {
		if patched[name] == "" {
			t.Fatalf("no mutant %s in the mutant table", name)
		}
		rows[i].name = name
		for seed := 1; seed <= n; seed++ {
			start := time.Now()
			out, failed := runOverlay(t, root, "", map[string]string{file[name]: patched[name]},
				"-rapid.checks=100", "-rapid.nofailfile", "-rapid.shrinktime=1s", fmt.Sprintf("-rapid.seed=%d", seed))
			rows[i].dur += time.Since(start)
			if bad := buildFailure(out); bad != "" {
				t.Fatalf("mutant %s does not build:\n%s", name, bad)
			}
			if failed {
				rows[i].caught++
			} else {
				t.Logf("%s survived rapid.seed=%d", name, seed)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-36s %-7s %s\n", "mutant", "checks", "caught")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-36s %-7d %d of %d seeds (%.1fs a run)\n", r.name, 100, r.caught, n, r.dur.Seconds()/float64(n))
		if r.caught*100 < 95*n {
			t.Errorf("%s survived %d of %d seeds at the CI check count: caught in less than 95%%", r.name, n-r.caught, n)
		}
	}
	t.Log("\n" + b.String())
}

// TestSelectsAtDepth: the control's check that a row's pattern selects a
// test at its depth, fed the output of the pattern that once selected no
// G14 scenario (only the random runs' parent at depth 2 passed).
func TestSelectsAtDepth(t *testing.T) {
	old := "--- PASS: TestImpl (0.05s)\n    --- PASS: TestImpl/differential-podgroups (0.00s)\nPASS\n"
	if selectsAtDepth(old, "TestImpl$/podgroups/G14") {
		t.Error("a run that selected no scenario at depth 3 counted as selecting one")
	}
	fixed := old + "    --- PASS: TestImpl/podgroups/G14-v138-a-narrowed-move (0.00s)\n"
	if !selectsAtDepth(fixed, "TestImpl$/podgroups/G14-.*") {
		t.Error("a run that selected a scenario at depth 3 did not count")
	}
}
