package upstream

import (
	_ "unsafe" // for go:linkname

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
)

// The queue runs its two flushes on timers started by Run. The conformance
// suite decides when flushes happen, so the adapter calls upstream's own
// unexported methods instead of re-implementing them: what runs is exactly
// the upstream code. (flush.s lets these declarations have no body.) The
// leftover flush changed its name in v1.37 (flushLeftover, release_*.go).

//go:linkname flushBackoffQCompleted k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushBackoffQCompleted
func flushBackoffQCompleted(p *queue.PriorityQueue, logger klog.Logger)
