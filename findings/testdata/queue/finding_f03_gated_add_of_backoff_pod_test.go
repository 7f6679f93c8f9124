package queue

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// TestFinding_F03_GatedAddOfPodInBackoffQKeepsBothEntries: Add of a pod
// that waits in backoffQ, now carrying a scheduling gate, runs PreEnqueue
// on the fresh entry; refused, the entry is parked with the unschedulable
// pods and the old one stays in backoffQ. The pod is held twice, and the
// backoffQ copy is popped despite the gate.
func TestFinding_F03_GatedAddOfPodInBackoffQKeepsBothEntries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.Background()
	q, _ := findingsNewQueue(ctx, findingsGates(ctx))
	defer q.Close()
	pod := findingsPod("a")
	findingsAdd(ctx, q, pod)
	findingsPopAndFailToBackoffQ(t, logger, q, pod)
	findingsExpectHeldOnce(t, q, pod, "the failure")

	gated := pod.DeepCopy()
	gated.Spec.SchedulingGates = append(gated.Spec.SchedulingGates, v1.PodSchedulingGate{Name: "example.com/hold"})
	findingsAdd(ctx, q, gated)
	findingsExpectHeldOnce(t, q, pod, "an Add of the pod, now gated, waiting in backoffQ")
}
