package model_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

func nominatedNames(m *model.Model, node string) []string {
	var out []string
	for _, p := range m.NominatedPodsForNode(node) {
		out = append(out, p.Name+"@"+p.NominatedNodeName)
	}
	return out
}

// R18 holds in both profiles.
func TestR18Nominator(t *testing.T) {
	for _, cfg := range []spec.Config{spec.DefaultConfig(nil), hintsCfg()} {
		t.Run(cfg.Profile.String(), func(t *testing.T) {
			m, err := model.New(cfg, t0)
			if err != nil {
				t.Fatal(err)
			}
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			a, b := pod("a", 0), pod("b", 0)
			b.NominatedNodeName = "n1"
			must(m.Add(a))
			must(m.Add(b)) // Add nominates by the pod's own NominatedNodeName
			if got := nominatedNames(m, "n1"); !slices.Equal(got, []string{"b@n1"}) {
				t.Fatalf("%s: after Add, n1 has %v", spec.R18Nominator, got)
			}
			// Preemption nominates a (in flight) to n1, after b.
			if _, _, err := m.PopPod("ns/a"); err != nil {
				t.Fatal(err)
			}
			must(m.AddNominatedPod(a, spec.NominateOverride, "n1"))
			must(m.AddNominatedPod(a, spec.NominateOverride, "n1")) // once per node
			if got := nominatedNames(m, "n1"); !slices.Equal(got, []string{"b@n1", "a@"}) {
				t.Fatalf("%s: n1 has %v", spec.R18Nominator, got)
			}
			// An update of a queued pod carrying no node keeps the queue's
			// nomination, and NominatedPodsForNode shows the held version.
			b2 := pod("b", 0)
			b2.Labels = map[string]string{"v": "2"}
			must(m.AddNominatedPod(b, spec.NominateOverride, "n2"))
			bNoNode := pod("b", 0)
			must(m.Update(bNoNode, b2))
			if got := m.NominatedPodsForNode("n2"); len(got) != 1 || got[0].Labels["v"] != "2" {
				t.Fatalf("%s: n2 has %v, want the updated b", spec.R18Nominator, got)
			}
			// Override to an empty node clears.
			must(m.AddNominatedPod(a, spec.NominateOverride, ""))
			if got := nominatedNames(m, "n1"); len(got) != 0 {
				t.Fatalf("%s: n1 has %v after clearing a", spec.R18Nominator, got)
			}
			// Delete drops the nomination; of a pod only nominated, it is no
			// error; of a pod neither queued nor nominated, it is.
			must(m.Done(a.UID))
			must(m.AddNominatedPod(a, spec.NominateOverride, "n3"))
			must(m.Delete(a))
			must(m.Delete(b2))
			if len(m.NominatedPodsForNode("n2")) != 0 || len(m.NominatedPodsForNode("n3")) != 0 {
				t.Fatalf("%s: Delete must drop nominations", spec.R18Nominator)
			}
			if err := m.Delete(a); !errors.Is(err, spec.ErrPodNotFound) {
				t.Fatalf("%s: Delete of a pod neither queued nor nominated = %v", spec.R18Nominator, err)
			}
			if err := m.AddNominatedPod(nil, spec.NominateNoop, ""); !errors.Is(err, spec.ErrNilPod) {
				t.Fatalf("AddNominatedPod(nil) = %v", err)
			}
			c := m.Clone()
			must(c.AddNominatedPod(a, spec.NominateOverride, "n9"))
			if c.Equal(m) || len(m.NominatedPodsForNode("n9")) != 0 {
				t.Fatal("a clone's nominator is not independent")
			}
		})
	}
}
