package linearizability

import (
	"fmt"
	"html"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// State is the porcupine state: the model, and a hash of everything Equal
// compares, computed once when the state is made. Without it the checker's
// cache of visited states degenerates into long runs of Equal calls on
// states that differ only in a Timestamp.
type State struct {
	Model *model.Model
	hash  uint64
}

func newState(m *model.Model) *State {
	s := m.Snapshot()
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	mixString := func(str string) {
		for i := 0; i < len(str); i++ {
			mix(uint64(str[i]))
		}
	}
	mix(uint64(s.Now.UnixNano()))
	mix(uint64(s.SchedulingCycle))
	mix(uint64(s.MoveRequestCycle))
	if s.Closed {
		mix(1)
	}
	for _, pl := range s.Places() {
		mix(uint64(pl.Loc) << 56)
		for i := range pl.Pods {
			p := &pl.Pods[i]
			mixString(string(p.Key()))
			mix(uint64(p.Timestamp.UnixNano()))
			mix(uint64(p.InitialAttemptTimestamp.UnixNano()))
			mix(uint64(p.Attempts))
			mix(uint64(len(p.UnschedulablePlugins)))
			mix(uint64(p.Pod.Priority))
			mixString(p.Pod.Status)
		}
	}
	return &State{Model: m, hash: h}
}

// ModelOptions adapt the model to a target's profile.
type ModelOptions struct {
	// SilentNoOps accepts a nil error where the model returns one: the
	// model's error means the operation changed nothing, and a target
	// that reports nothing for such input (conformance.TargetInfo.
	// SilentNoOps) must then have changed nothing either, which the
	// later operations of the history check.
	SilentNoOps bool
}

// Model returns the porcupine model of a queue with config cfg whose clock
// starts at start. Its states are *State.
func Model(cfg spec.Config, start time.Time) porcupine.Model {
	return ModelWith(cfg, start, ModelOptions{})
}

// ModelWith is Model with options.
func ModelWith(cfg spec.Config, start time.Time, opts ModelOptions) porcupine.Model {
	d := describer{start: start}
	return porcupine.Model{
		Init: func() any {
			m, err := model.New(cfg, start)
			if err != nil {
				panic(fmt.Sprintf("linearizability: model.New: %v", err))
			}
			return newState(m)
		},
		Step: func(state, input, output any) (bool, any) {
			m := state.(*State).Model.Clone()
			if !apply(m, input.(Input), output.(Output), opts) {
				return false, state
			}
			return true, newState(m)
		},
		Equal: func(a, b any) bool {
			x, y := a.(*State), b.(*State)
			return x.hash == y.hash && x.Model.Equal(y.Model)
		},
		Hash: func(state any) uint64 { return state.(*State).hash },
		DescribeOperation: func(input, output any) string {
			return d.operation(input.(Input), output.(Output))
		},
		DescribeState: func(state any) string { return d.state(state.(*State).Model) },
		DescribeOperationMetadata: func(info any) string {
			if md, ok := info.(Metadata); ok {
				return d.metadata(md)
			}
			if info == nil {
				return ""
			}
			return html.EscapeString(fmt.Sprint(info))
		},
	}
}

// Metadata rides along with each recorded operation for the visualisation's
// tooltip: who issued it and its full arguments and result.
type Metadata struct {
	Client int
	Seq    int // the operation's index in its client's sequence
	In     Input
	Out    Output
}
