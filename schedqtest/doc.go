// Package schedqtest is the one test-helper package of schedq, as rafttest
// is etcd raft's: the plugin registry every suite runs with, the standard
// cluster events and pod builders, the scenario language (Op, ParseOp,
// ParseScenario, FormatScenario), the one error comparison (SameError), the
// one queued-pod comparison (InfoEqual), the state renderer (Render) and an
// Executor that applies operations to any spec.Queue.
//
// A scenario is text, one operation a line, with the state the model
// prints after each step:
//
//	add a prio=10
//	----
//	ok
//	now=+0s
//	activeQ: a(prio=10 ts=+0s first=+0s attempts=0)
//	backoffQ: -
//	unschedulablePods: -
//	inFlight: -
//	schedulingCycle=0 moveRequestCycle=-1
//
// The operations (Kind lists them) are those of spec.Queue plus the clock
// and, in the podgroups profile, the pod-group objects. Every operation,
// argument and config key, with an example each, is in
// docs/scenario-language.md, which TestLanguageReference checks against
// this parser.
//
// A scenario is written for one profile of the contract. Without a
// profile it is classic and starts from Config(). "config profile=hints"
// makes it a scenario of the queueing-hints profile: it starts from
// HintsConfig(), the standard hint set (plugins Fit, Gate, Flaky and
// Affinity with named pure hints, and the PreEnqueue plugins Gate, which
// gates pods labelled gated=yes, and Hold, which gates pods labelled
// hold=yes and registers no event), "max-backoff=0s" is allowed (no
// backoff), pending=(..) hands back PendingPlugins, and the state shows
// the hint fields of each pod and the in-flight list:
//
//	backoffQ: a(ts=+0s first=+0s attempts=1 expiry=+1s plugins=Fit unschedulableCount=1)
//	unschedulablePods: g(labels=(gated=yes) ts=+0s attempts=0 plugins=Gate gatedBy=Gate)
//	inFlight: b(ts=+0s first=+0s attempts=1)
//	schedulingCycle=2 moveRequestCycle=-1
//	inFlightEvents: pod:ns/b NodeAdd
//
// Pods are named: a name stands for the pod of namespace "ns" with UID
// "uid-<name>" (Pod), and the Executor remembers the last version of each
// pod and what Pop returned for it, so "fail a" hands back exactly the
// QueuedPodInfo that Pop returned. The token "nil" stands for a nil pod.
//
// Generator is the one random source of the suites: it draws sequences of
// these operations from the state of a shadow model (a Runner), one
// generator per Kind, from a Drawing: a profile's operations with their
// weights and the tables of their arguments (Drawings has the three
// profiles'; conformance's random runs narrow them to valid operations
// and declared differences' Avoid). Each sequence first draws its swarm
// (Drawing.Swarm, swarm testing): which operations and table entries it
// uses, and with what weights. Choices come from a Chooser: rapid's
// (RapidChooser, shrinking), fuzz input's (ByteChooser). A profile adds
// an operation with a Kind, its line in kindGens (gen.go) and a weight in
// its drawing.
package schedqtest
