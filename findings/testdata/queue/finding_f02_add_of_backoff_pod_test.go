package queue

import (
	"context"
	"testing"

	"k8s.io/klog/v2"
)

// TestFinding_F02_AddOfPodInBackoffQKeepsBothEntries: Add of a pod that
// waits in backoffQ puts a fresh entry into activeQ and leaves the old one
// in backoffQ, so the pod is held twice. The backoffQ entry is popped
// later as a second attempt of the same pod (or discarded as tracked in
// multiple places if the first is still in flight).
func TestFinding_F02_AddOfPodInBackoffQKeepsBothEntries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.Background()
	q, _ := findingsNewQueue(ctx)
	defer q.Close()
	pod := findingsPod("a")
	findingsAdd(ctx, q, pod)
	findingsPopAndFailToBackoffQ(t, logger, q, pod)
	findingsExpectHeldOnce(t, q, pod, "the failure")

	findingsAdd(ctx, q, pod)
	findingsExpectHeldOnce(t, q, pod, "an Add of the pod waiting in backoffQ")
}
