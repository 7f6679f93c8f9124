package upstream

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Pre-queueing hints (R20-R22) are plugged in as kube-scheduler plugs in
// its plugins': each registration's pre-queueing hint goes into the
// QueueingHintFunction beside its queueing hint (setPreQueueingHint, a
// release file: the field exists from v1.37). A config with the setting
// on (prequeue=on) runs only where the release's default gates run
// pre-queueing hints (v1.38 on); elsewhere it is refused, so its
// scenarios are n/a with the reason. Such a config reads the event's
// objects (a node's labels name the pods), so its target takes them
// (objectTarget): the pods as *v1.Pod, a schedqtest.Node as a *v1.Node,
// and back again for the hints and the in-flight list.

// preHint is a pre-queueing hint in schedqtest.UpstreamPreQueueingHint's
// shape, which the release file makes the release's PreQueueingHintFn.
type preHint = func(oldObj, newObj any) (allPods bool, pods []schedqtest.PodName, err error)

// refusePreQueueing is the answer to a config with pre-queueing hints on a
// release whose default gates leave them off.
func refusePreQueueing(cfg spec.Config) error {
	if !cfg.PreQueueing || Release().PreQueueingHints {
		return nil
	}
	return fmt.Errorf("%w: %s's default gates leave SchedulerPreQueueingHints off (on by default from v1.38): no pre-queueing hints",
		spec.ErrInvalidConfig, Release().Version)
}

// preQueueingHintOf is h, registered for e, with upstream's objects
// converted to schedq's.
func preQueueingHintOf(h spec.PreQueueingHintFn, e spec.ClusterEvent) preHint {
	fn := schedqtest.UpstreamPreQueueingHint(h, e)
	return func(oldObj, newObj any) (bool, []schedqtest.PodName, error) {
		return fn(fromV1Object(oldObj), fromV1Object(newObj))
	}
}

// fromV1Object is an event's object in schedq's words: a pod as *spec.Pod,
// a node as *schedqtest.Node, nil as nil, anything else as it is.
func fromV1Object(o any) any {
	switch x := o.(type) {
	case *v1.Pod:
		if x != nil {
			return toSpec(x)
		}
		return nil
	case *v1.Node:
		if x != nil {
			return &schedqtest.Node{Name: x.Name, Labels: x.Labels}
		}
		return nil
	}
	return o
}

// toV1Object is the inverse of fromV1Object for a move's objects: the pod
// if there is one, else the other object; a type the adapter cannot
// convert is errNoCallerObjects.
func toV1Object(p *spec.Pod, o any) (any, error) {
	switch x := o.(type) {
	case nil:
	case *schedqtest.Node:
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: x.Name, Labels: x.Labels}}, nil
	default:
		return nil, fmt.Errorf("%w: a %T", errNoCallerObjects, o)
	}
	if p != nil {
		return toV1(p), nil
	}
	return nil, nil
}

// errNoCallerObjects: what the adapter cannot pass to upstream.
var errNoCallerObjects = errors.New("upstream adapter: takes no caller objects other than pods and nodes, and no update verdicts (upstream decides an update's events itself)")

// objectTarget is the target of a config with pre-queueing hints: Target
// with spec.ObjectQueue's two calls, because the hints read the event's
// objects.
type objectTarget struct{ *Target }

// inFlightObject is an in-flight record's object in schedq's words: the
// caller's own node, which the model records too (spec.SameObject
// compares pointers), for a node this target converted.
func (t *Target) inFlightObject(o any) any {
	if n, ok := o.(*v1.Node); ok && t.nodes[n] != nil {
		return t.nodes[n]
	}
	return fromV1Object(o)
}

var _ spec.ObjectQueue = objectTarget{}

// MoveAllToActiveOrBackoffQueueWithObjects is R4h with the event's
// objects, which upstream hands to the pre-queueing and queueing hints.
func (o objectTarget) MoveAllToActiveOrBackoffQueueWithObjects(occ spec.Occurrence, pre spec.PreEnqueueCheck) error {
	if err := occ.Validate(); err != nil {
		return err
	}
	oldObj, err := toV1Object(occ.Old, occ.OldObject)
	if err != nil {
		return err
	}
	newObj, err := toV1Object(occ.New, occ.NewObject)
	if err != nil {
		return err
	}
	for _, pair := range [][2]any{{oldObj, occ.OldObject}, {newObj, occ.NewObject}} {
		if n, ok := pair[0].(*v1.Node); ok {
			o.nodes[n] = pair[1].(*schedqtest.Node)
		}
	}
	o.countedMove(occ.Event, func() {
		o.q.MoveAllToActiveOrBackoffQueue(o.logger, toEvent(occ.Event), oldObj, newObj, o.preCheck(pre))
	})
	return nil
}

// UpdateWithChange is R9h; upstream derives the verdict itself, so only a
// nil change (Update's own) is taken.
func (o objectTarget) UpdateWithChange(oldPod, newPod *spec.Pod, change *spec.PodChange) error {
	return o.updateWithChange(oldPod, newPod, change)
}

func (t *Target) updateWithChange(oldPod, newPod *spec.Pod, change *spec.PodChange) error {
	if change != nil {
		return errNoCallerObjects
	}
	return t.Update(oldPod, newPod)
}
