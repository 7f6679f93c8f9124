package stategraph

import (
	"strings"
	"testing"
)

// A state of SchedulingQueuePodGroups.tla as TLC prints it: g's cycle runs
// with a in flight and b pending, c waits in backoffQ.
const groupsState = `/\ activeQ = {}
/\ backoffQ = {"c"}
/\ unschedulablePods = {}
/\ inFlight = {"a"}
/\ members = [g |-> {}]
/\ pendingPodGroupPods = {"b"}
/\ incompletePodGroupPods = {}
/\ podGroups = {"g"}
/\ inCycle = {"g"}
/\ groupCycle = [group |-> "g", unschedulableCount |-> 1, consecutiveErrorsCount |-> 0, timestamp |-> 0, popped |-> {"a"}]
/\ unschedulableCount = [c |-> 0, g |-> 0]
/\ consecutiveErrorsCount = [c |-> 1, g |-> 0]
/\ backoffExpiry = [c |-> 2, g |-> -1]
/\ timestamp = [c |-> 1, g |-> -1]
/\ now = 1
/\ schedulingCycle = 2
/\ live = {"a", "b", "c"}
/\ skippedBackoff = FALSE`

func TestGroupsStateFromTLC(t *testing.T) {
	st, err := parseTLCState(groupsState)
	if err != nil {
		t.Fatal(err)
	}
	want := "now=1 schedulingCycle=2 a=inFlight b=pendingPodGroupPods c=backoffQ podGroups={g} inCycle={g} " +
		"cycle=g(ts=0,uc=1,ce=0,popped={a}) entity:c(ts=1,uc=0,ce=1,expiry=2)"
	if got := st.String(); got != want {
		t.Errorf("encoding\n  got  %s\n  want %s", got, want)
	}
}

// The parser refuses a state that breaks a ghost or TypeOK: such a graph is
// no reference for the model.
func TestGroupsStateRefusesBrokenStates(t *testing.T) {
	for _, c := range []struct{ name, old, new, want string }{
		{"skippedBackoff", `skippedBackoff = FALSE`, `skippedBackoff = TRUE`, "skippedBackoff is TRUE"},
		{"live", `live = {"a", "b", "c"}`, `live = {"a", "c"}`, "not the live ones"},
		{"data of an entity not held", `backoffExpiry = [c |-> 2, g |-> -1]`, `backoffExpiry = [c |-> 2, g |-> 3]`, "is not held yet has data"},
		{"two places", `inFlight = {"a"}`, `inFlight = {"a", "c"}`, "is in backoffQ and inFlight"},
		{"unknown variable", `/\ now = 1`, `/\ now = 1
/\ lastPoppedEntity = "g"`, "unknown variable lastPoppedEntity"},
	} {
		broken := strings.Replace(groupsState, c.old, c.new, 1)
		if broken == groupsState {
			t.Fatalf("%s: the replacement did not apply", c.name)
		}
		if _, err := parseTLCState(broken); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
		}
	}
}
