package properties

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The subject is the queue the pair compares with the model: the
// implementation, or one of the deliberately broken variants below, which
// the round-trip test uses to show that what a failing run prints is a
// scenario that reproduces the failure. A subject is a conformance.Target,
// so the same queue runs under the conformance runner when a printed
// scenario is replayed.
//
// SCHEDQ_PROPERTIES_SUBJECT=<name> runs the random suites and
// TestRegressions against that subject instead of the implementation.
const subjectEnv = "SCHEDQ_PROPERTIES_SUBJECT"

// subject is a queue under test with its fake clock.
type subject interface {
	conformance.Target
	// impl is the implementation queue under the subject.
	impl() *impl.PriorityQueue
}

type subjectKind struct {
	name string
	desc string
	wrap func(implTarget) subject
}

func (k subjectKind) new(cfg spec.Config) (subject, error) {
	q, err := conformance.NewImpl(cfg, schedqtest.Start)
	if err != nil {
		return nil, fmt.Errorf("impl.New: %w", err)
	}
	q.About = conformance.TargetInfo{
		Name:        "properties-" + k.name,
		Description: "the queue package properties compares with the model",
		Blocking:    true,
		Observes:    conformance.Observes{MoveRequestCycle: true, PodInfo: true, Closed: true},
	}
	return k.wrap(implTarget{q}), nil
}

// subjects are the implementation and its broken variants, by name.
var subjects = []subjectKind{
	{"impl", "the implementation", func(t implTarget) subject { return t }},
	{"delete-ignores-backoffQ-pod", "R10: Delete of a pod in backoffQ succeeds but leaves it there (as the mutant of the same name)",
		func(t implTarget) subject { return deleteIgnoresBackoffQ{t} }},
}

// subjectFromEnv is the subject named by SCHEDQ_PROPERTIES_SUBJECT, the
// implementation by default. An unknown name panics: a run against a
// misspelt subject must not pass as a run against the implementation.
func subjectFromEnv() subjectKind {
	name := os.Getenv(subjectEnv)
	if name == "" {
		return subjects[0]
	}
	for _, k := range subjects {
		if k.name == name {
			return k
		}
	}
	var all []string
	for _, k := range subjects {
		all = append(all, k.name)
	}
	panic(fmt.Sprintf("%s=%q: no such subject; the subjects are %s", subjectEnv, name, strings.Join(all, ", ")))
}

// implTarget is the implementation as a conformance target
// (conformance.Impl, named for the subject).
type implTarget struct{ *conformance.Impl }

func (t implTarget) impl() *impl.PriorityQueue { return t.PriorityQueue }

// deleteIgnoresBackoffQ breaks R10 as the mutant
// delete-ignores-backoffQ-pod does, from outside the queue.
type deleteIgnoresBackoffQ struct{ implTarget }

func (q deleteIgnoresBackoffQ) Delete(pod *spec.Pod) error {
	if pod != nil {
		s := q.Snapshot()
		if slices.ContainsFunc(s.BackoffQ, func(i spec.QueuedPodInfo) bool { return i.Key() == pod.Key() }) {
			return nil
		}
	}
	return q.implTarget.Delete(pod)
}
