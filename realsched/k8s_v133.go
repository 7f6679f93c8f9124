//go:build !v137

package realsched

// The upstream API of kube-scheduler v1.33.13 that the rest of the package
// uses. A later release adds a file of its own with the same names (built
// with its tag and its modfile); everything else is written once.

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// Release is the kube-scheduler release this build runs.
const Release = "v1.33.13"

// The upstream types, by the names this package uses.
type (
	upstreamQueue    = queue.SchedulingQueue
	preEnqueueCheck  = queue.PreEnqueueCheck
	clusterEvent     = framework.ClusterEvent
	queuedPodInfo    = framework.QueuedPodInfo
	podInfo          = framework.PodInfo
	nominatingInfo   = framework.NominatingInfo
	upstreamProfile  = framework.Framework
	enqueueExtension = framework.EnqueueExtensions
	preEnqueuePlugin = framework.PreEnqueuePlugin
	status           = framework.Status
)

const (
	modeOverride = framework.ModeOverride
	nodeResource = framework.Node
	actionAdd    = framework.Add
	actionTaint  = framework.UpdateNodeTaint
	actionAll    = framework.All
)

// preEnqueueAdmits runs pl on pod as upstream's queue does (a background
// context): any status but success refuses it.
func preEnqueueAdmits(pl preEnqueuePlugin, pod *v1.Pod) bool {
	return pl.PreEnqueue(context.Background(), pod).IsSuccess()
}

func newPodInfo(p *v1.Pod) (*podInfo, error) { return framework.NewPodInfo(p) }

// newQueuedPodInfo builds what Pop returns in this release.
func newQueuedPodInfo(pi *podInfo, ts, first time.Time, attempts int, plugins sets.Set[string]) *queuedPodInfo {
	f := first
	return &queuedPodInfo{PodInfo: pi, Timestamp: ts, Attempts: attempts, InitialAttemptTimestamp: &f, UnschedulablePlugins: plugins, PendingPlugins: sets.New[string]()}
}

// initialAttempt reads InitialAttemptTimestamp (a pointer in this release).
func initialAttempt(q *queuedPodInfo) time.Time {
	if q.InitialAttemptTimestamp == nil {
		return time.Time{}
	}
	return *q.InitialAttemptTimestamp
}

// Pop is v1.33's Pop: one pod, or an error once the queue is closed.
func (a *Adapter) Pop(logger klog.Logger) (*queuedPodInfo, error) { return a.pop() }

// Pop of the recorder, v1.33's signature.
func (r *Recorder) Pop(logger klog.Logger) (*queuedPodInfo, error) { return r.pop(logger) }

// Pop of the timer, v1.33's signature.
func (t *timed) Pop(logger klog.Logger) (*queuedPodInfo, error) { return t.pop(logger) }

// popUpstream calls the wrapped queue's Pop.
func popUpstream(q upstreamQueue, logger klog.Logger) (*queuedPodInfo, error) { return q.Pop(logger) }

// setNextPod points the scheduling loop at q (Scheduler.NextPod in v1.33).
func setNextPod(s *scheduler.Scheduler, q upstreamQueue) { s.NextPod = q.Pop }

// labelOf is a cluster event's metric label.
func labelOf(e clusterEvent) string { return e.Label() }

// setGates selects the classic queue: v1.33.13 with SchedulerQueueingHints
// and SchedulerPopFromBackoffQ off (both default on in this release). The
// gates are process-wide and read by scheduler.New, its event handlers and
// the queue, so both queues of a comparison run under the same ones.
func setGates() error {
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{
		string(features.SchedulerQueueingHints):   false,
		string(features.SchedulerPopFromBackoffQ): false,
	})
}
