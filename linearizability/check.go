package linearizability

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// Result is the verdict on one history.
type Result struct {
	// Outcome is porcupine's: Ok, Illegal, or Unknown when the check ran
	// out of time. Unknown is undecided, never a pass.
	Outcome porcupine.CheckResult
	Info    porcupine.LinearizationInfo
	Elapsed time.Duration
	// Steps is how many model steps the search tried: its size, which
	// unlike Elapsed does not depend on the machine's load.
	Steps int64
}

// Check decides whether h is linearizable with respect to the model, giving
// up after timeout (Unknown).
func Check(h *History, timeout time.Duration) Result {
	m := h.Model()
	var steps atomic.Int64
	step := m.Step
	m.Step = func(state, input, output any) (bool, any) {
		steps.Add(1)
		return step(state, input, output)
	}
	start := time.Now()
	res, info := porcupine.CheckOperationsVerbose(m, h.Operations, timeout)
	return Result{Outcome: res, Info: info, Elapsed: time.Since(start), Steps: steps.Load()}
}

// VisDir is where failure evidence goes: $SCHEDQ_VIS_DIR if set, else the
// system temp dir. Not a test's TempDir, which is removed when it ends.
func VisDir() string {
	if d := os.Getenv("SCHEDQ_VIS_DIR"); d != "" {
		return d
	}
	return os.TempDir()
}

// WriteEvidence writes the porcupine visualisation of h (an HTML file that
// shows every client's operations on a timeline and, for a history that is
// not linearizable, the longest partial linearizations with the model state
// after each step), and next to it a plain-text listing (.txt) and the
// history itself (.json, for ReadHistory). It returns the first two paths.
func WriteEvidence(h *History, res Result, name string) (htmlPath, textPath string, err error) {
	dir := VisDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	f, err := os.CreateTemp(dir, "schedq-porcupine-"+sanitize(name)+"-*.html")
	if err != nil {
		return "", "", err
	}
	htmlPath = f.Name()
	f.Close()
	if err := porcupine.VisualizePath(h.Model(), res.Info, htmlPath); err != nil {
		return htmlPath, "", err
	}
	base := strings.TrimSuffix(htmlPath, ".html")
	textPath = base + ".txt"
	if err := h.WriteJSON(base + ".json"); err != nil {
		return htmlPath, textPath, err
	}
	return htmlPath, textPath, os.WriteFile(textPath, []byte(h.Text(res)), 0o644)
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// Text renders the history as one line per operation in call order, with
// its call/return window, followed by the longest linearizable prefix the
// checker found and the model state after it: for a history that is not
// linearizable, the operation that cannot follow is among those that
// overlap or follow the end of that prefix.
func (h *History) Text(res Result) string {
	d := describer{start: Start}
	var b strings.Builder
	w := h.Workload
	fmt.Fprintf(&b, "schedq linearizability history: %v, %d clients x %d ops, %d pods/client, seed %d, %d rescues, %d blocked Pops, %d operations\n",
		res.Outcome, w.Clients, w.OpsPerClient, w.PodsPerClient, w.Seed, h.Rescues, h.BlockedPops, len(h.Operations))
	fmt.Fprintf(&b, "client %d is the coordinator (rescue Adds, final Close)\n\n", w.Clients)
	for _, op := range h.Operations {
		fmt.Fprintf(&b, "[%5d,%5d] c%d  %s\n", op.Call, op.Return, op.ClientId, d.long(op.Input.(Input), op.Output.(Output)))
	}
	parts := res.Info.PartialLinearizationsOperations()
	if len(parts) == 0 || len(parts[0]) == 0 {
		return b.String()
	}
	longest := parts[0][0]
	for _, p := range parts[0] {
		if len(p) > len(longest) {
			longest = p
		}
	}
	fmt.Fprintf(&b, "\nlongest linearizable prefix: %d of %d operations\n", len(longest), len(h.Operations))
	m := h.Model().Init().(*State).Model
	for i, op := range longest {
		Apply(m, op.Input.(Input), op.Output.(Output))
		if i >= len(longest)-8 {
			fmt.Fprintf(&b, "  ... [%d,%d] c%d  %s\n", op.Call, op.Return, op.ClientId, d.operation(op.Input.(Input), op.Output.(Output)))
		}
	}
	fmt.Fprintf(&b, "\nmodel state after it:\n%s", m.String())
	if wit, ok := h.Witness(res); ok {
		fmt.Fprintf(&b, "\n--- scenario (save as linearizability/testdata/scenarios/regressions/<name>.txt) ---\n%s\n", wit.Scenario("regressions/<name>", h.Config))
	}
	if len(longest) == len(h.Operations) {
		return b.String()
	}
	// The operations that could be linearized next: not yet in the
	// prefix, and called before the first of them returned.
	in := make(map[int64]bool, len(longest))
	for _, op := range longest {
		in[op.Call] = true
	}
	var rest []porcupine.Operation
	first := int64(math.MaxInt64)
	for _, op := range h.Operations {
		if !in[op.Call] {
			rest = append(rest, op)
			first = min(first, op.Return)
		}
	}
	fmt.Fprintf(&b, "\noperations that could come next, and what the model says:\n")
	for _, op := range rest {
		if op.Call > first {
			continue
		}
		i, o := op.Input.(Input), op.Output.(Output)
		verdict := "allowed here (but every way on from it fails later)"
		if why := Explain(m.Clone(), i, o); why != "" {
			verdict = "REJECTED: " + why
		}
		fmt.Fprintf(&b, "  [%d,%d] c%d  %s\n      %s\n", op.Call, op.Return, op.ClientId, d.operation(i, o), verdict)
	}
	return b.String()
}
