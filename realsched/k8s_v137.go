//go:build v137

package realsched

// The upstream API of kube-scheduler v1.37.2 that the rest of the package
// uses, under the names k8s_v133.go gives v1.33.13's: built with
// `go test -modfile=go.v137.mod -tags v137`. The queue runs in schedq's
// hints profile (v1.37.2 with its default feature gates), and the paths
// that are off by default refuse to start (refuseOffByDefault).

import (
	"errors"
	"fmt"
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedq/schedq/spec"
)

// Release is the kube-scheduler release this build runs.
const Release = "v1.37.2"

// hintsProfile: v1.37.2 runs queueing hints, schedq's hints profile.
const hintsProfile = true

// ErrOffByDefault is the adapter's refusal of a path kube-scheduler v1.37.2
// leaves off by default: schedq's hints profile does not model it, and a
// queue that half-works there would lose or strand pods silently.
var ErrOffByDefault = errors.New("realsched: a path off by default in kube-scheduler v1.37.2 is not supported by schedq's hints profile")

// offByDefault are the gates whose paths the hints profile leaves out
// (spec.ProfileHints): pod groups (GenericWorkload, CompositePodGroup),
// asynchronous API calls (SchedulerAsyncAPICalls: the queue would patch pod
// status), pre-queueing hints (SchedulerPreQueueingHints); each must be
// off. SchedulerPopFromBackoffQ must be on (R2h pops from backoffQ).
var offByDefault = []featuregate.Feature{features.GenericWorkload, features.CompositePodGroup, features.SchedulerAsyncAPICalls, features.SchedulerPreQueueingHints}

func refuseOffByDefault() error {
	var errs []error
	for _, g := range offByDefault {
		if utilfeature.DefaultFeatureGate.Enabled(g) {
			errs = append(errs, fmt.Errorf("feature gate %s is on", g))
		}
	}
	if !utilfeature.DefaultFeatureGate.Enabled(features.SchedulerPopFromBackoffQ) {
		errs = append(errs, fmt.Errorf("feature gate %s is off", features.SchedulerPopFromBackoffQ))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrOffByDefault, errors.Join(errs...))
	}
	return nil
}

// setGates selects v1.37.2's default gates for the paths the adapter
// refuses, and for TopologyAwareWorkloadScheduling, which CompositePodGroup
// needs (they are process-wide: a test that turned one on leaves it as
// it found it, and both queues of a comparison run under the same ones).
func setGates() error {
	m := map[string]bool{string(features.SchedulerPopFromBackoffQ): true, string(features.TopologyAwareWorkloadScheduling): false}
	for _, g := range offByDefault {
		m[string(g)] = false
	}
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(m)
}

// The adapter's methods whose signatures are v1.37's.

// AddUnschedulablePodIfNotPresent is R3h.
func (a *Adapter) AddUnschedulablePodIfNotPresent(logger klog.Logger, pInfo *queuedPodInfo, cycle int64) error {
	return a.addUnschedulable(pInfo, cycle)
}

// GetPod finds a queued pod by name (no pod groups).
func (a *Adapter) GetPod(name, namespace string, _ *v1.PodSchedulingGroup) (*queuedPodInfo, bool) {
	return a.getPod(name, namespace)
}

// AddPodGroup is refused: pod groups (GenericWorkload).
func (a *Adapter) AddPodGroup(klog.Logger, *schedulingv1beta1.PodGroup) { _ = a.refuse("AddPodGroup") }

// UpdatePodGroup is refused: pod groups (GenericWorkload).
func (a *Adapter) UpdatePodGroup(klog.Logger, *schedulingv1beta1.PodGroup) {
	_ = a.refuse("UpdatePodGroup")
}

// DeletePodGroup is refused: pod groups (GenericWorkload).
func (a *Adapter) DeletePodGroup(klog.Logger, *schedulingv1beta1.PodGroup) {
	_ = a.refuse("DeletePodGroup")
}

// AddCompositePodGroup is refused (CompositePodGroup).
func (a *Adapter) AddCompositePodGroup(klog.Logger, *schedulingv1alpha3.CompositePodGroup) {
	_ = a.refuse("AddCompositePodGroup")
}

// UpdateCompositePodGroup is refused (CompositePodGroup).
func (a *Adapter) UpdateCompositePodGroup(klog.Logger, *schedulingv1alpha3.CompositePodGroup) {
	_ = a.refuse("UpdateCompositePodGroup")
}

// DeleteCompositePodGroup is refused (CompositePodGroup).
func (a *Adapter) DeleteCompositePodGroup(klog.Logger, *schedulingv1alpha3.CompositePodGroup) {
	_ = a.refuse("DeleteCompositePodGroup")
}

// GetPodGroup finds nothing: the adapter queues no pod groups.
func (a *Adapter) GetPodGroup(string, string, fwk.EntityKeyType) (*framework.QueuedPodGroupInfo, bool) {
	return nil, false
}

// The recorder's.

// AddUnschedulablePodIfNotPresent is recorded and checked.
func (r *Recorder) AddUnschedulablePodIfNotPresent(logger klog.Logger, p *queuedPodInfo, cycle int64) error {
	return r.addUnschedulable(p, cycle, func() error { return r.inner.AddUnschedulablePodIfNotPresent(logger, p, cycle) })
}

// The pod-group, composite-group and status-patch calls are passed through
// unchecked: the default gates never make them.

func (r *Recorder) AddPodGroup(logger klog.Logger, pg *schedulingv1beta1.PodGroup) {
	r.inner.AddPodGroup(logger, pg)
}
func (r *Recorder) UpdatePodGroup(logger klog.Logger, pg *schedulingv1beta1.PodGroup) {
	r.inner.UpdatePodGroup(logger, pg)
}
func (r *Recorder) DeletePodGroup(logger klog.Logger, pg *schedulingv1beta1.PodGroup) {
	r.inner.DeletePodGroup(logger, pg)
}
func (r *Recorder) AddCompositePodGroup(logger klog.Logger, c *schedulingv1alpha3.CompositePodGroup) {
	r.inner.AddCompositePodGroup(logger, c)
}
func (r *Recorder) UpdateCompositePodGroup(logger klog.Logger, c *schedulingv1alpha3.CompositePodGroup) {
	r.inner.UpdateCompositePodGroup(logger, c)
}
func (r *Recorder) DeleteCompositePodGroup(logger klog.Logger, c *schedulingv1alpha3.CompositePodGroup) {
	r.inner.DeleteCompositePodGroup(logger, c)
}

func (r *Recorder) GetPodGroup(name, ns string, k fwk.EntityKeyType) (*framework.QueuedPodGroupInfo, bool) {
	return r.inner.GetPodGroup(name, ns, k)
}
func (r *Recorder) GetPod(name, ns string, g *v1.PodSchedulingGroup) (*queuedPodInfo, bool) {
	return r.inner.GetPod(name, ns, g)
}

// The timer's.

// AddUnschedulablePodIfNotPresent ends the attempt.
func (t *timed) AddUnschedulablePodIfNotPresent(logger klog.Logger, p *queuedPodInfo, cycle int64) error {
	t.failed(p)
	return t.upstreamQueue.AddUnschedulablePodIfNotPresent(logger, p, cycle)
}

// NominatedPodsForNode is R18 (nominatedPodsForNode).
func (a *Adapter) NominatedPodsForNode(nodeName string) []nominatedInfo {
	return a.nominatedPodsForNode(nodeName)
}

// NominatedPodsForNode is checked (nominatedPodsForNode).
func (r *Recorder) NominatedPodsForNode(node string) []nominatedInfo {
	return r.nominatedPodsForNode(node, r.inner.NominatedPodsForNode)
}

// askPreCheck asks upstream's preCheck about pod: up to v1.37 it takes
// the pod itself.
func askPreCheck(pc preEnqueueCheck, pod *v1.Pod, _ *podInfo) bool { return pc(pod) }

// preCheckOn is f as this release's preCheck (the tests' own).
func preCheckOn(f func(*v1.Pod) bool) preEnqueueCheck { return f }

// preQueueing: this release's default gates run no pre-queueing hints.
const preQueueing = false

// upstreamPreHintFn: no pre-queueing hints here (preQueueing is false).
type upstreamPreHintFn = func()

func preHintOf(any) upstreamPreHintFn { return nil }

func callPreHint(upstreamPreHintFn, any, any) (spec.PreQueueingResult, error) {
	return spec.AllPods, nil
}

// addPodGroupRefused makes the release's pod-group call that the adapter
// refuses (the tests' own).
func addPodGroupRefused(a *Adapter) { a.AddPodGroup(klog.Background(), nil) }
