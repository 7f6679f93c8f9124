// Package spec is the contract of the kube-scheduler scheduling queue: the
// types every other package speaks (pods, queued pods, cluster events, the
// plugin registry, Config), the Queue interface that both the executable
// model and the concurrent implementation satisfy, the error values, the
// backoff formula, and the invariants as pure functions over snapshots.
//
// The semantics are those of the classic upstream queue: kube-scheduler
// v1.33.13, pkg/scheduler/backend/queue, with the feature gates
// SchedulerQueueingHints and SchedulerPopFromBackoffQ turned off. Each
// operation cites its rule id (R1..R14) and each invariant its id (I1..I6)
// from DESIGN.md, so tests, the TLA+ spec and prose can point at the same
// thing.
//
// The package holds no goroutines, no locks and no wall time: time is always
// an argument.
package spec
