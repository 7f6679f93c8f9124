//go:build !schedqperturb

package impl

import "sync"

// queueMutex is the queue's one lock (mu). In the ordinary build it is a
// sync.Mutex; built with -tags schedqperturb it is perturb.go's, which
// yields the processor around every acquire and release.
type queueMutex = sync.Mutex

// Perturbed reports whether this is the schedule-perturbing build (-tags
// schedqperturb), so that a check can say which build it ran on.
const Perturbed = false
