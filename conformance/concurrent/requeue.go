package concurrent

import (
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/internal/parked"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// untilLostFactor bounds RequeueRace's untilLost: on an idle 2-core
// machine the releases with the race lose the pod once in 400 to 5,500
// trials (measured 2026-11-28; under load far more often), so the old
// bound, 25 times 400, missed it in about one run in eight for one release
// and failed make verify on a release that still has the race. At 250
// times 400 a release losing it once in 5,000 trials shows none with odds
// e^-20; a trial takes 2-5 ms, so the mean cost stays seconds.
const untilLostFactor = 250

// RequeueRace hands a failed pod back while another goroutine waits in
// Pop, on fresh targets made with cfg, and reports in how many of ran
// trials the pod was lost: the waiting Pop went back to sleep and the queue
// holds the pod nowhere. G1 adds a, pops it, raises NodeAdd while a is in
// flight and fails it with NodeResourcesFit (which registered NodeAdd);
// G2 is parked in Pop (by the runtime's account) before G1 fails a. cfg
// must make the failed pod reach G2: the hints profile, whose Pop takes
// from backoffQ when activeQ is empty.
//
// It runs trials times; with untilLost it goes on, up to untilLostFactor
// times trials, until a loss shows, which is what reproducing a known
// finding needs.
func RequeueRace(t *testing.T, newTarget conformance.NewTarget, cfg spec.Config, trials int, untilLost bool) (lost, ran int) {
	t.Helper()
	for i := 0; i < trials || untilLost && lost == 0 && i < untilLostFactor*trials; i++ {
		ran++
		tg := newTarget(t, cfg, start)
		a := schedqtest.Pod("a", 1)
		if err := tg.Add(a); err != nil {
			t.Fatal(err)
		}
		info, cycle, err := tg.Pop()
		if err != nil {
			t.Fatal(err)
		}
		g2 := startPop(tg)
		if _, err := parked.Await(g2.id, PopFrame, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		// An event while a is in flight that the rejecting plugin
		// registered for: the hint says Queue, so a goes to backoffQ (not
		// the error backoffQ, from which Pop does not take).
		tg.MoveAllToActiveOrBackoffQueue(schedqtest.NodeAdd, nil)
		info.UnschedulablePlugins = spec.NewPluginSet("NodeResourcesFit")
		if err := tg.AddUnschedulableIfNotPresent(info, cycle); err != nil {
			t.Fatal(err)
		}
		// Either G2 returns a, or it sleeps again with a nowhere.
		deadline := time.Now().Add(10 * time.Second)
		for !g2.poll() {
			if time.Now().After(deadline) {
				t.Fatalf("trial %d: G2 neither returned nor lost the pod:\n%s", i, parked.Describe(g2.id))
			}
			s, _ := parked.Lookup(g2.id)
			if !s.Parked() {
				time.Sleep(10 * time.Microsecond)
				continue
			}
			snap := tg.Snapshot()
			if loc, _ := snap.Find(a.Key()); loc != spec.Nowhere {
				continue // not yet popped
			}
			lost++
			if lost == 1 {
				t.Logf("trial %d: a lost: G2 sleeps in Pop again (%v), queue %s", i, s, describe(snap))
			}
			break
		}
		if p := g2.out; p != nil && (p.info == nil || p.info.Pod.Name != "a") {
			t.Fatalf("trial %d: G2 popped %v", i, p)
		}
		tg.Close()
		if !g2.poll() {
			<-g2.done
		}
	}
	return lost, ran
}
