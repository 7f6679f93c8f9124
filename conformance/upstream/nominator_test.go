package upstream

import (
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

func nominated(tg spec.Nominator, node string) []string {
	var out []string
	for _, p := range tg.NominatedPodsForNode(node) {
		out = append(out, p.Name)
	}
	return out
}

func pod(name string) *spec.Pod {
	return &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name)}
}

// TestNominatorListsPods: upstream's nominator really lists the pods the
// adapter nominated, on every release and in every mode the release has,
// and drops a nomination of a deleted pod, as it does in the scheduler.
// (The conformance driver compares the listed pods too; this is the same
// check without the suite, so that it cannot pass because nothing is
// compared.)
func TestNominatorListsPods(t *testing.T) {
	targets := map[string]conformance.NewTarget{"default gates": QueueingHints()}
	if Release().CanSwitchHintsOff {
		targets["classic"] = Classic()
	}
	for name, newTarget := range targets {
		t.Run(name, func(t *testing.T) {
			tg := newTarget(t, spec.DefaultConfig(schedqtest.Registry), time.Unix(0, 0)).(*Target)
			a, b, c := pod("a"), pod("b"), pod("c")
			for _, p := range []*spec.Pod{a, b, c} {
				if err := tg.Add(p); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range []*spec.Pod{a, b} {
				if err := tg.AddNominatedPod(p, spec.NominateOverride, "n1"); err != nil {
					t.Fatal(err)
				}
			}
			if got := nominated(tg, "n1"); !slices.Equal(got, []string{"a", "b"}) {
				t.Fatalf("nominated to n1: %v, want [a b]", got)
			}
			if err := tg.Delete(c); err != nil {
				t.Fatal(err)
			}
			if err := tg.AddNominatedPod(c, spec.NominateOverride, "n1"); err != nil {
				t.Fatal(err)
			}
			if got := nominated(tg, "n1"); !slices.Equal(got, []string{"a", "b"}) {
				t.Fatalf("after nominating the deleted c, nominated to n1: %v, want [a b]", got)
			}
		})
	}
}

// TestNominatorWithAnEmptyListerListsNothing is the broken variant the
// adapter had: the informer's lister, which nothing fills, as
// NewPriorityQueue attaches it by default. Upstream then drops every
// nomination, which is what TestNominatorListsPods would catch.
func TestNominatorWithAnEmptyListerListsNothing(t *testing.T) {
	empty := informers.NewSharedInformerFactory(fake.NewSimpleClientset(), 0).Core().V1().Pods().Lister()
	q, clk, pods, stop, err := newQueue(spec.DefaultConfig(schedqtest.Registry), time.Unix(0, 0), false, queue.WithPodLister(empty))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	defer q.Close()
	tg := &Target{q: q, clock: clk, pods: pods, cfg: spec.DefaultConfig(schedqtest.Registry)}
	if err := tg.AddNominatedPod(pod("a"), spec.NominateOverride, "n1"); err != nil {
		t.Fatal(err)
	}
	if got := nominated(tg, "n1"); len(got) != 0 {
		t.Fatalf("with the empty lister, nominated to n1: %v; the broken variant no longer shows what the lister fixes", got)
	}
}
