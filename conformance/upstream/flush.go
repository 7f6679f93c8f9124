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
// leftover flush changed its name in v1.37: flushLeftover links the
// release's (release_to_v136.go, release_v137_up.go). realsched links the
// same two methods; internal/linkcheck says why each module declares its
// own, and TestLinkedSignatures checks them against every release.

//go:linkname flushBackoffQCompleted k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushBackoffQCompleted
func flushBackoffQCompleted(p *queue.PriorityQueue, logger klog.Logger)
