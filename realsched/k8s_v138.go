//go:build v138

package realsched

// The upstream API of kube-scheduler v1.38.0-beta.0 that the rest of the
// package uses, under the names k8s_v133.go gives v1.33.13's: built with
// `GOTOOLCHAIN=go1.27.3 go test -modfile=go.v138.mod -tags v138` (the
// release needs Go 1.27). The queue runs in schedq's hints profile with
// pre-queueing hints (Config.PreQueueing: v1.38's default gates), the
// plugins' PreQueueingHintFns as its pre-queueing hints, and the paths
// that are off by default refuse to start (refuseOffByDefault).

import (
	"context"
	"errors"
	"fmt"
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedq/schedq/spec"
)

// Release is the kube-scheduler release this build runs.
const Release = "v1.38.0-beta.0"

// hintsProfile: v1.38 runs queueing hints, schedq's hints profile.
const hintsProfile = true

// preQueueing: v1.38's default gates run pre-queueing hints (R20-R22).
const preQueueing = true

// upstreamPreHintFn is a registration's pre-queueing hint.
type upstreamPreHintFn = fwk.PreQueueingHintFn

// ErrOffByDefault is the adapter's refusal of a path kube-scheduler v1.38
// leaves off by default: schedq's hints profile does not model it, and a
// queue that half-works there would lose or strand pods silently.
var ErrOffByDefault = errors.New("realsched: kube-scheduler v1.38 with a feature gate set otherwise than its default, on a path schedq's hints profile does not model")

// offByDefault are the gates whose paths the hints profile leaves out
// (spec.ProfileHints): pod groups (GenericWorkload, CompositePodGroup),
// asynchronous API calls (SchedulerAsyncAPICalls: the queue would patch pod
// status); each must be off. SchedulerPopFromBackoffQ and
// SchedulerPreQueueingHints must be on (R2h pops from backoffQ; the
// config's pre-queueing hints are the plugins', R20).
var offByDefault = []featuregate.Feature{features.GenericWorkload, features.CompositePodGroup, features.SchedulerAsyncAPICalls}

// onByDefault are the gates whose paths the config models as on.
var onByDefault = []featuregate.Feature{features.SchedulerPopFromBackoffQ, features.SchedulerPreQueueingHints}

func refuseOffByDefault() error {
	var errs []error
	for _, g := range offByDefault {
		if utilfeature.DefaultFeatureGate.Enabled(g) {
			errs = append(errs, fmt.Errorf("feature gate %s is on", g))
		}
	}
	for _, g := range onByDefault {
		if !utilfeature.DefaultFeatureGate.Enabled(g) {
			errs = append(errs, fmt.Errorf("feature gate %s is off", g))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrOffByDefault, errors.Join(errs...))
	}
	return nil
}

// setGates selects v1.38's default gates for the paths the adapter
// refuses, and for TopologyAwareWorkloadScheduling, which CompositePodGroup
// needs (they are process-wide: a test that turned one on leaves it as
// it found it, and both queues of a comparison run under the same ones).
func setGates() error {
	m := map[string]bool{string(features.TopologyAwareWorkloadScheduling): false}
	for _, g := range offByDefault {
		m[string(g)] = false
	}
	for _, g := range onByDefault {
		m[string(g)] = true
	}
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(m)
}

// preHintOf is a registration's pre-queueing hint (nil: all pods, R20).
func preHintOf(ev fwk.ClusterEventWithHint) upstreamPreHintFn { return ev.PreQueueingHintFn }

// callPreHint asks fn about a move's objects: all pods, or the pods it
// names as keys.
func callPreHint(fn upstreamPreHintFn, oldObj, newObj any) (spec.PreQueueingResult, error) {
	r, err := fn(klog.Background(), oldObj, newObj)
	if err != nil || r.AllPods {
		return spec.AllPods, err
	}
	keys := make([]spec.PodKey, len(r.Pods))
	for i, n := range r.Pods {
		keys[i] = spec.PodKey(n.Namespace + "/" + n.Name)
	}
	return spec.PodsNamed(keys...), nil
}

// The adapter's methods whose signatures are v1.37's.

// AddUnschedulablePodIfNotPresent is R3h.
func (a *Adapter) AddUnschedulablePodIfNotPresent(_ context.Context, pInfo *queuedPodInfo, cycle int64) error {
	return a.addUnschedulable(pInfo, cycle)
}

// GetPod finds a queued pod by name (no pod groups).
func (a *Adapter) GetPod(_ context.Context, name, namespace string, _ *v1.PodSchedulingGroup) (*queuedPodInfo, bool) {
	return a.getPod(name, namespace)
}

// AddGenericPodGroup is refused: pod groups (GenericWorkload).
func (a *Adapter) AddGenericPodGroup(klog.Logger, *fwk.GenericPodGroup) {
	_ = a.refuse("AddGenericPodGroup")
}

// UpdateGenericPodGroup is refused: pod groups (GenericWorkload).
func (a *Adapter) UpdateGenericPodGroup(klog.Logger, *fwk.GenericPodGroup) {
	_ = a.refuse("UpdateGenericPodGroup")
}

// DeleteGenericPodGroup is refused: pod groups (GenericWorkload).
func (a *Adapter) DeleteGenericPodGroup(klog.Logger, *fwk.GenericPodGroup) {
	_ = a.refuse("DeleteGenericPodGroup")
}

// GetPodGroup finds nothing: the adapter queues no pod groups.
func (a *Adapter) GetPodGroup(string, string) (*framework.QueuedPodGroupInfo, bool) {
	return nil, false
}

// The recorder's.

// AddUnschedulablePodIfNotPresent is recorded and checked.
func (r *Recorder) AddUnschedulablePodIfNotPresent(ctx context.Context, p *queuedPodInfo, cycle int64) error {
	return r.addUnschedulable(p, cycle, func() error { return r.inner.AddUnschedulablePodIfNotPresent(ctx, p, cycle) })
}

// The pod-group and status-patch calls are passed through
// unchecked: the default gates never make them.

func (r *Recorder) AddGenericPodGroup(logger klog.Logger, g *fwk.GenericPodGroup) {
	r.inner.AddGenericPodGroup(logger, g)
}
func (r *Recorder) UpdateGenericPodGroup(logger klog.Logger, g *fwk.GenericPodGroup) {
	r.inner.UpdateGenericPodGroup(logger, g)
}
func (r *Recorder) DeleteGenericPodGroup(logger klog.Logger, g *fwk.GenericPodGroup) {
	r.inner.DeleteGenericPodGroup(logger, g)
}

func (r *Recorder) GetPodGroup(name, ns string) (*framework.QueuedPodGroupInfo, bool) {
	return r.inner.GetPodGroup(name, ns)
}
func (r *Recorder) GetPod(ctx context.Context, name, ns string, g *v1.PodSchedulingGroup) (*queuedPodInfo, bool) {
	return r.inner.GetPod(ctx, name, ns, g)
}

// The timer's.

// AddUnschedulablePodIfNotPresent ends the attempt.
func (t *timed) AddUnschedulablePodIfNotPresent(ctx context.Context, p *queuedPodInfo, cycle int64) error {
	t.failed(p)
	return t.upstreamQueue.AddUnschedulablePodIfNotPresent(ctx, p, cycle)
}

// NominatedPodsForNode is R18 (nominatedPodsForNode).
func (a *Adapter) NominatedPodsForNode(_ klog.Logger, nodeName string) []nominatedInfo {
	return a.nominatedPodsForNode(nodeName)
}

// NominatedPodsForNode is checked (nominatedPodsForNode).
func (r *Recorder) NominatedPodsForNode(logger klog.Logger, node string) []nominatedInfo {
	return r.nominatedPodsForNode(node, func(n string) []nominatedInfo { return r.inner.NominatedPodsForNode(logger, n) })
}

// askPreCheck asks upstream's preCheck about pod: v1.38's takes a queued
// entity, here the pod alone (info: its parsed PodInfo, nil to parse it).
func askPreCheck(pc preEnqueueCheck, pod *v1.Pod, info *podInfo) bool {
	if info == nil {
		var err error
		if info, err = framework.NewPodInfo(pod); err != nil {
			return true // a pod that cannot be parsed moves: a wasted attempt, not a loss
		}
	}
	return pc(&queuedPodInfo{PodInfo: info})
}

// preCheckOn is f as this release's preCheck (the tests' own): f sees
// every pod of the entity, and all must pass.
func preCheckOn(f func(*v1.Pod) bool) preEnqueueCheck {
	return func(e framework.QueuedEntityInfo) bool {
		for p := range e.ForEachPodInfo() {
			if !f(p.Pod) {
				return false
			}
		}
		return true
	}
}

// addPodGroupRefused makes the release's pod-group call that the adapter
// refuses (the tests' own).
func addPodGroupRefused(a *Adapter) { a.AddGenericPodGroup(klog.Background(), nil) }
