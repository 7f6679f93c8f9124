package schedqtest_test

import (
	"fmt"

	"github.com/schedq/schedq/schedqtest"
)

// A scenario written from operations, with the result and the state the
// model prints after each step: the text a failing random run prints, to
// be saved as a regression file.
func ExampleFormatScenario() {
	ops, err := schedqtest.ParseOps("add a prio=10", "pop", "fail a")
	if err != nil {
		panic(err)
	}
	text, err := schedqtest.FormatScenario(schedqtest.Scenario{Rules: []string{"R3"}, Ops: ops})
	if err != nil {
		panic(err)
	}
	fmt.Println(text)
	// Output:
	// rules R3
	// ----
	//
	// add a prio=10
	// ----
	// ok
	// now=+0s
	// activeQ: a(prio=10 ts=+0s first=+0s attempts=0)
	// backoffQ: -
	// unschedulablePods: -
	// inFlight: -
	// schedulingCycle=0 moveRequestCycle=-1
	//
	// pop
	// ----
	// popped a cycle=1 attempts=1
	// now=+0s
	// activeQ: -
	// backoffQ: -
	// unschedulablePods: -
	// inFlight: a(prio=10 ts=+0s first=+0s attempts=1)
	// schedulingCycle=1 moveRequestCycle=-1
	//
	// fail a
	// ----
	// ok
	// now=+0s
	// activeQ: -
	// backoffQ: a(prio=10 ts=+0s first=+0s attempts=1 expiry=+1s)
	// unschedulablePods: -
	// inFlight: -
	// schedulingCycle=1 moveRequestCycle=-1
}
