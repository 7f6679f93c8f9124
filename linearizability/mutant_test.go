package linearizability_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedq/schedq/internal/overlaytest"
)

var mutants = flag.Bool("lin.mutants", false, "TestImplMutantsAreCaught: build and run impl mutants of the podgroups profile (go test -overlay, one build each)")

// implMutants are textual patches of impl/ that break a pod-group rule
// inside the implementation, where no wrapper can reach: the podgroups
// histories of TestImplIsLinearizablePodGroups must not pass with any.
// The snippets must occur exactly once in their file (a change to impl
// that invalidates one fails this test rather than testing nothing). They
// are rows of properties' mutant table (pg-pop-leaves-a-member-queued,
// pg-failed-member-skips-pending, pg-attempt-keeps-the-cycle-open,
// pg-pop-counts-no-member-attempt), the ones a concurrent scheduler's
// traffic meets most.
var implMutants = []struct {
	name, file, old, new string
}{
	{
		name: "Pop of a group leaves its last member queued (G3, IG2)",
		file: "impl/podgroups.go",
		old:  "\tfor _, m := range ent.members {\n\t\tm.info.Attempts++",
		new:  "\tfor _, m := range ent.members[:len(ent.members)-1] {\n\t\tm.info.Attempts++",
	},
	{
		name: "a member failing in its group's cycle forms a second entity (G4)",
		file: "impl/podgroups.go",
		old:  "\tcase g.inCycle[k]:\n\t\tg.wait(e, inPending)",
		new:  "\tcase false && g.inCycle[k]:\n\t\tg.wait(e, inPending)",
	},
	{
		name: "the end of a group's cycle leaves it open (G5, IG3)",
		file: "impl/podgroups.go",
		old:  "\tdelete(g.inCycle, k)\n\tpending := g.waiters(k, inPending)",
		new:  "\tpending := g.waiters(k, inPending)",
	},
	{
		name: "Pop of a group counts no attempt for its members (G3)",
		file: "impl/podgroups.go",
		old:  "\t\tm.info.Attempts++\n\t\ttoken, _ := q.p.popped(m)",
		new:  "\t\ttoken, _ := q.p.popped(m)",
	},
}

// TestImplMutantsAreCaught runs TestImplIsLinearizablePodGroups on each
// mutant in a go test of its own (internal/overlaytest) and requires
// that a history is not linearizable, or that the recording's consistency
// check at quiescence fails; it says which. Off by default (-lin.mutants):
// each mutant costs a build of impl and this package without -race.
func TestImplMutantsAreCaught(t *testing.T) {
	if !*mutants {
		t.Skip("-lin.mutants not given")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range implMutants {
		t.Run(m.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(root, m.file))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(src), m.old); n != 1 {
				t.Fatalf("the snippet occurs %d times in %s, want once: adapt the mutant", n, m.file)
			}
			overlay := map[string]string{m.file: strings.Replace(string(src), m.old, m.new, 1)}
			out, failed := overlaytest.Run(t, root, "./linearizability/", "TestImplIsLinearizablePodGroups", overlay, nil,
				"-lin.runs=10", "-lin.clients=2,4,8")
			if b := overlaytest.BuildFailure(out); b != "" {
				t.Fatalf("the mutant does not build:\n%s", b)
			}
			switch {
			case !failed:
				t.Fatalf("not caught: the podgroups histories passed\n%s", out)
			case strings.Contains(out, "is NOT linearizable"):
				t.Logf("caught: a history is not linearizable")
			case strings.Contains(out, "at quiescence after the history"):
				t.Logf("caught by impl's consistency check at quiescence, before the history's check")
			case strings.Contains(out, "panic: "), strings.Contains(out, "the target panicked in"):
				// A mutant that corrupts impl's indexes crashes it; the
				// crash (a panic, or the harness's TargetPanic verdict with
				// the history), not the check, is then what shows it.
				t.Logf("caught by a panic inside the mutated queue, before any verdict")
			default:
				t.Fatalf("the run failed, but not by a verdict on a history:\n%s", out)
			}
		})
	}
}
