package conformance

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Replayed is a scenario played outside a test by Replay.
type Replayed struct {
	// Steps are the operations with the output the model prints after
	// each (what the scenario file expects).
	Steps []ReplayedStep
	// Failure is the target's first departure from the model, with the
	// operations as a scenario; "" if there is none.
	Failure string
	// NotApplicable says why the scenario does not apply to the target.
	NotApplicable string
}

// ReplayedStep is one operation of a replayed scenario.
type ReplayedStep struct {
	Line     int    // line of the operation in the file
	Op       string // the operation, as the language prints it
	Output   string // the result line(s) and the state, as the model prints them
	Expected string // the output the file holds
}

// Replay plays a scenario file's text on a target made by newTarget, for a
// command rather than a test (such as a tool that replays a file and
// prints the queues after each step). The target and a shadow model are
// compared exactly as RunFile does; the expected outputs in the file are
// returned, not checked. An error means the file is not a valid scenario.
func Replay(newTarget func(cfg spec.Config, start time.Time) (Target, error), name, text string) (Replayed, error) {
	var out Replayed
	d := newDriver(nil, name, nil)
	_, ds, err := schedqtest.ReadDirectives(text)
	if err != nil {
		return out, err
	}
	for _, dir := range ds {
		if schedqtest.IsHeader(dir.Cmd) {
			if err := d.sc.AddDirective(dir.Cmd, dir.Args, dir.Input); err != nil {
				return out, fmt.Errorf("%s:%d: %w", name, dir.Line, err)
			}
			continue
		}
		if err := d.sc.AddDirective(dir.Cmd, dir.Args, dir.Input); err != nil {
			return out, fmt.Errorf("%s:%d: %w", name, dir.Line, err)
		}
		op := d.sc.Ops[len(d.sc.Ops)-1]
		if d.expect == nil {
			t, err := newTarget(d.sc.Config.Build(), d.start)
			if err != nil && errors.Is(err, spec.ErrInvalidConfig) && d.sc.Config.Build().Validate() == nil {
				// The target refuses the scenario's profile (profile.go).
				out.NotApplicable = fmt.Sprintf("the target refuses the %s profile's config: %v", d.sc.Config.Profile, err)
				return out, nil
			}
			if err != nil {
				return out, err
			}
			d.newTarget = func(testing.TB, spec.Config, time.Time) Target { return t }
			if err := d.begin(); err != nil {
				return out, err
			}
		}
		output, err := d.step(op)
		if err != nil {
			return out, fmt.Errorf("%s:%d: %s: %w", name, dir.Line, op, err)
		}
		if d.invalid != nil {
			return out, fmt.Errorf("%s:%d: %s: %w", name, dir.Line, op, d.invalid)
		}
		out.Steps = append(out.Steps, ReplayedStep{Line: dir.Line, Op: op.String(), Output: output, Expected: dir.Expected})
	}
	if d.target != nil {
		defer d.target.Close()
	}
	out.NotApplicable = d.na
	out.Failure = d.failureReport()
	return out, nil
}
