// The helpers of upstream's scheduling_queue_test.go that the findings
// reproductions use. make findings adds this file only to a copy whose own
// tests cannot build here: v1.38.0-beta.0's import k8s.io/ktesting, a
// staging module the module proxy does not serve, so that copy runs the
// reproductions without upstream's test files. In a Kubernetes tree, where
// scheduling_queue_test.go builds, leave this file out.

package queue

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

func init() {
	metrics.Register()
}

var nodeAdd = fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add}

func queueHintReturnQueue(logger klog.Logger, pod *v1.Pod, oldObj, newObj interface{}) (fwk.QueueingHint, error) {
	return fwk.Queue, nil
}

func newDefaultQueueSort() fwk.LessFunc {
	sort := &queuesort.PrioritySort{}
	return sort.Less
}
