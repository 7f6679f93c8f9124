// Helpers shared by the findings reproductions (finding_*_test.go): each
// reproduction is a test of package queue, run by make findings in a copy
// of every release with this file and the release's findings_compat_test.go
// beside it. To run one in a Kubernetes tree, copy the three files into
// pkg/scheduler/backend/queue and run go test -run TestFinding there.

package queue

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	testingclock "k8s.io/utils/clock/testing"
)

// findingsHeld says how often the queue holds pod: in PendingPods (activeQ,
// backoffQ, the unschedulable pods) and in flight. A pod the scheduler
// has handed to the queue is held exactly once.
func findingsHeld(q *PriorityQueue, pod *v1.Pod) (pending, inFlight int, summary string) {
	pods, summary := q.PendingPods()
	for _, p := range pods {
		if p.UID == pod.UID {
			pending++
		}
	}
	for _, p := range q.InFlightPods() {
		if p.UID == pod.UID {
			inFlight++
		}
	}
	return pending, inFlight, summary
}

// findingsExpectHeldOnce fails the test if pod is not held exactly once.
func findingsExpectHeldOnce(t *testing.T, q *PriorityQueue, pod *v1.Pod, after string) {
	t.Helper()
	pending, inFlight, summary := findingsHeld(q, pod)
	if pending+inFlight != 1 {
		t.Errorf("after %s, pod %s is held %d times (pending %d [%s], in flight %d), want once",
			after, pod.Name, pending+inFlight, pending, summary, inFlight)
	}
}

// findingsNodeAddQueues is a profile where fooPlugin's queueing hint says
// Queue for every NodeAdd.
func findingsNodeAddQueues() QueueingHintMapPerProfile {
	return QueueingHintMapPerProfile{"": {nodeAdd: {{PluginName: "fooPlugin", QueueingHintFn: queueHintReturnQueue}}}}
}

// findingsNewQueue is a queue with the default gates on a fake clock that
// stands still, so a pod that fails stays backing off, with fooPlugin's
// NodeAdd hint and opts.
func findingsNewQueue(ctx context.Context, opts ...Option) (*PriorityQueue, *testingclock.FakeClock) {
	clk := testingclock.NewFakeClock(time.Now())
	opts = append([]Option{WithClock(clk), WithQueueingHintMapPerProfile(findingsNodeAddQueues())}, opts...)
	return NewTestQueue(ctx, newDefaultQueueSort(), opts...), clk
}

// findingsPopAndFailToBackoffQ takes pod (which must be the head of
// activeQ) through an attempt that fooPlugin rejects while a NodeAdd
// arrives: the hint says Queue and the pod is backing off, so it goes to
// backoffQ.
func findingsPopAndFailToBackoffQ(t *testing.T, logger klog.Logger, q *PriorityQueue, pod *v1.Pod) {
	t.Helper()
	pInfo := findingsPopAndRecordNodeAdd(t, logger, q, pod)
	if err := findingsFail(logger, q, pInfo, q.SchedulingCycle()); err != nil {
		t.Fatalf("handing back %s: %v", pod.Name, err)
	}
}

// findingsPopAndRecordNodeAdd pops pod and raises a NodeAdd while it is in
// flight; the returned QueuedPodInfo is rejected by fooPlugin, ready to be
// handed back.
func findingsPopAndRecordNodeAdd(t *testing.T, logger klog.Logger, q *PriorityQueue, pod *v1.Pod) *framework.QueuedPodInfo {
	t.Helper()
	pInfo, err := findingsPop(logger, q)
	if err != nil || pInfo == nil || pInfo.Pod.UID != pod.UID {
		t.Fatalf("Pop: %v, %v; want %s", pInfo, err, pod.Name)
	}
	q.MoveAllToActiveOrBackoffQueue(logger, nodeAdd, nil, nil, nil)
	pInfo.UnschedulablePlugins = sets.New("fooPlugin")
	return pInfo
}

// findingsPod is a pod of the default scheduler.
func findingsPod(name string) *v1.Pod {
	return st.MakePod().Name(name).Namespace("ns").UID(name + "-uid").Obj()
}
