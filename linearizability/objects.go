package linearizability

import (
	"fmt"
	"maps"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Caller objects (R19). Against a queue that takes them (spec.ObjectQueue)
// the workload draws moves whose events carry node objects and gives each
// client's pods a caller object of their own; in the hints profile
// NodeResourcesFit's hint for NodeAdd (schedqtest.NodeZoneHint) reads the
// event's node against the pod's zone label, so an object decides whether
// a parked pod moves, and the in-flight list must record it for the
// replay. The model is handed the very same objects, so every history
// checks that the queue keeps them, hands them to its hints and returns
// them untouched, concurrently.

// nodeObjects are the node objects of the workload's events: one per zone
// of the pods' zone labels (NodeZoneHint: Queue for a pod of that zone,
// QueueSkip for one of the other) and one with no zone. Objects are
// compared by identity (spec.SameObject), so the workload only ever hands
// out these pointers, and a saved history reads back onto them.
var nodeObjects = []*schedqtest.Node{
	{Name: "n1", Labels: map[string]string{"zone": "a"}},
	{Name: "n2", Labels: map[string]string{"zone": "b"}},
	{Name: "n3"},
}

// zones are the values of the pods' zone labels.
var zones = []string{"a", "b"}

// PodObject is the caller object of a workload's pod (Pod.Object): what a
// *v1.Pod stands in for. A comparable value, so two copies of it are the
// same object (spec.SameObject) and a saved history reads it back as is.
type PodObject struct {
	// Pod is the name of the pod the object belongs to.
	Pod string
}

func (o PodObject) String() string { return "podobject(" + o.Pod + ")" }

// canonNode returns the node of nodeObjects equal to n (by name and
// labels), or n itself if there is none.
func canonNode(n *schedqtest.Node) *schedqtest.Node {
	for _, c := range nodeObjects {
		if c.Name == n.Name && maps.Equal(c.Labels, n.Labels) {
			return c
		}
	}
	return n
}

// canonObject turns an object read back from JSON (a map) into the object
// the workload handed out: a PodObject, or the node of nodeObjects.
func canonObject(obj any) (any, error) {
	m, ok := obj.(map[string]any)
	if !ok {
		if n, ok := obj.(*schedqtest.Node); ok {
			return canonNode(n), nil
		}
		return obj, nil
	}
	if name, ok := m["Pod"].(string); ok && len(m) == 1 {
		return PodObject{Pod: name}, nil
	}
	name, ok := m["Name"].(string)
	if !ok {
		return nil, fmt.Errorf("caller object %v: neither a pod object nor a node", m)
	}
	n := &schedqtest.Node{Name: name}
	if ls, ok := m["Labels"].(map[string]any); ok {
		n.Labels = map[string]string{}
		for k, v := range ls {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("caller object %v: label %s is not a string", m, k)
			}
			n.Labels[k] = s
		}
	}
	return canonNode(n), nil
}

// canonPod gives p (read back from JSON) its canonical caller object.
func canonPod(p *spec.Pod) error {
	if p == nil || p.Object == nil {
		return nil
	}
	o, err := canonObject(p.Object)
	p.Object = o
	return err
}

func canonInfo(info *spec.QueuedPodInfo) error {
	if info == nil {
		return nil
	}
	return canonPod(info.Pod)
}

// canonGroup canonicalises the members of a popped group.
func canonGroup(g *spec.QueuedPodGroupInfo) error {
	if g == nil {
		return nil
	}
	for i := range g.Members {
		if err := canonInfo(&g.Members[i]); err != nil {
			return err
		}
	}
	return nil
}

func canonSnapshot(s *spec.Snapshot) error {
	if s == nil {
		return nil
	}
	for _, pl := range s.Places() {
		for i := range pl.Pods {
			if err := canonPod(pl.Pods[i].Pod); err != nil {
				return err
			}
		}
	}
	if g := s.PodGroups; g != nil {
		for _, ps := range [][]spec.QueuedPodInfo{g.PendingPodGroupPods, g.IncompletePodGroupPods} {
			for i := range ps {
				if err := canonPod(ps[i].Pod); err != nil {
					return err
				}
			}
		}
	}
	for i := range s.InFlightEvents {
		ev := &s.InFlightEvents[i].Event
		for _, p := range []*spec.Pod{ev.Old, ev.New} {
			if err := canonPod(p); err != nil {
				return err
			}
		}
		for _, o := range []*any{&ev.OldObject, &ev.NewObject} {
			if *o == nil {
				continue
			}
			c, err := canonObject(*o)
			if err != nil {
				return err
			}
			*o = c
		}
	}
	return nil
}

// canonOp gives the node objects of op (parsed from its line) the
// pointers of nodeObjects.
func canonOp(op *schedqtest.Op) {
	if op.OldObject != nil {
		op.OldObject = canonNode(op.OldObject)
	}
	if op.NewObject != nil {
		op.NewObject = canonNode(op.NewObject)
	}
}
