package realsched

import (
	_ "unsafe" // go:linkname

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
)

// Under the trace check the recorder runs the flushes itself, so that they
// are calls of the history: for upstream's queue that means its own
// unexported flush methods (flush.s lets these have no body). The
// leftover flush's name is the release's (k8s_v133.go, k8s_v137_up.go).
// conformance/upstream links the same two methods; internal/linkcheck says
// why each module declares its own, and TestLinkedSignatures checks them
// against every release.

//go:linkname upstreamFlushBackoff k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushBackoffQCompleted
func upstreamFlushBackoff(p *queue.PriorityQueue, logger klog.Logger)
