package spec_test

import (
	"errors"
	"math/bits"
	"testing"

	"github.com/schedq/schedq/spec"
)

// The action bits: v1.33's thirteen in v1.33's positions (a v1.33 adapter
// converts by identity), then v1.37's three; All has sixteen.
func TestActionBits(t *testing.T) {
	v133 := []spec.ActionType{spec.Add, spec.Delete, spec.UpdateNodeAllocatable, spec.UpdateNodeLabel,
		spec.UpdateNodeTaint, spec.UpdateNodeCondition, spec.UpdateNodeAnnotation, spec.UpdatePodLabel,
		spec.UpdatePodScaleDown, spec.UpdatePodToleration, spec.UpdatePodSchedulingGatesEliminated,
		spec.UpdatePodGeneratedResourceClaim, spec.UpdatePodOther}
	for i, a := range v133 {
		if a != 1<<i {
			t.Errorf("%v is bit %d, v1.33 has it at %d", a, bits.TrailingZeros64(uint64(a)), i)
		}
	}
	if n := bits.OnesCount64(uint64(spec.All)); n != 16 {
		t.Errorf("All has %d bits, want 16", n)
	}
	for _, a := range []spec.ActionType{spec.UpdatePodScaleUp, spec.UpdateNodeDeclaredFeature, spec.UpdateNodePreemptionPolicy} {
		if a.Validate() != nil || a.String() == "" || a <= spec.UpdatePodOther {
			t.Errorf("%v: want a v1.37 bit above v1.33's", a)
		}
	}
	if err := (spec.All + 1).Validate(); !errors.Is(err, spec.ErrInvalidEvent) {
		t.Errorf("an unknown bit: %v, want ErrInvalidEvent", err)
	}
}

// HintsMatch compares actions in v1.37's bit order: here v1.37 matches
// (incoming 0x280 <= registered 0x1200) while schedq's own order would not
// (0x4080 > 0x280).
func TestHintsMatchInV137Order(t *testing.T) {
	reg := spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodLabel | spec.UpdatePodToleration}
	in := spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdateNodeDeclaredFeature | spec.UpdatePodLabel}
	if !spec.HintsMatch(reg, in) {
		t.Errorf("HintsMatch(%v, %v) = false; v1.37 matches", reg, in)
	}
	if in.ActionType <= reg.ActionType {
		t.Fatalf("the case no longer tells the orders apart")
	}
	if spec.V137Order(spec.Update) != 0x7ffc || spec.V137Order(spec.All) != 0x7fff {
		t.Errorf("V137Order(Update) = %#x, V137Order(All) = %#x: want v1.37's Update and All", spec.V137Order(spec.Update), spec.V137Order(spec.All))
	}
}

type node struct{ name string }

// ObjectAs and SameObject never panic, whatever the caller hands over.
func TestObjectHelpers(t *testing.T) {
	if n, err := spec.ObjectAs[*node](&node{"n1"}); err != nil || n.name != "n1" {
		t.Errorf("ObjectAs of a node: %v, %v", n, err)
	}
	for _, o := range []any{nil, (*node)(nil), "a string", node{"by value"}} {
		if _, err := spec.ObjectAs[*node](o); !errors.Is(err, spec.ErrInvalidEvent) {
			t.Errorf("ObjectAs[*node](%#v): %v, want ErrInvalidEvent", o, err)
		}
	}
	n := &node{"n1"}
	for _, c := range []struct {
		a, b any
		want bool
	}{
		{nil, nil, true}, {n, n, true}, {n, &node{"n1"}, false}, {n, nil, false},
		{map[string]int{"a": 1}, map[string]int{"a": 1}, true}, {[]int{1}, []int{2}, false}, {1, "1", false},
	} {
		if got := spec.SameObject(c.a, c.b); got != c.want {
			t.Errorf("SameObject(%#v, %#v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
