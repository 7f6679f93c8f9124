package realsched

import (
	_ "unsafe" // go:linkname

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
)

// Under the trace check the recorder runs the flushes itself, so that they
// are calls of the history: for upstream's queue that means its own
// unexported flush methods (flush.s lets these have no body).

//go:linkname upstreamFlushBackoff k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushBackoffQCompleted
func upstreamFlushBackoff(p *queue.PriorityQueue, logger klog.Logger)

//go:linkname upstreamFlushLeftover k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushUnschedulablePodsLeftover
func upstreamFlushLeftover(p *queue.PriorityQueue, logger klog.Logger)
