package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// profileLine names a scenario's profile and the queue it stands for;
// with the pre-queueing setting (R20-R22), the v1.38 queue.
func profileLine(c spec.Config) string {
	switch {
	case c.Profile == spec.ProfilePodGroups:
		return "podgroups (kube-scheduler v1.37.2 with GenericWorkload: the hints profile, with pod groups queued, popped and backed off as one entity)"
	case c.Profile == spec.ProfileHints && c.PreQueueing:
		return "hints with pre-queueing hints (kube-scheduler v1.38 defaults: the hints profile, with move requests narrowed by pre-queueing hints, R20-R22)"
	case c.Profile == spec.ProfileHints:
		return "hints (kube-scheduler v1.37.2 defaults: queueing hints, the in-flight list, Pop from backoffQ, PreEnqueue plugins)"
	}
	return "classic (kube-scheduler v1.33.13, queueing hints off)"
}

// invariantIDs are the invariants spec.CheckStep checks under c.
func invariantIDs(c spec.Config) string {
	switch {
	case c.Profile == spec.ProfilePodGroups:
		return "I1, I2h-I5h, I6, I7, IG1-IG4"
	case c.Profile == spec.ProfileHints && c.PreQueueing:
		return "I1, I2h-I5h, I6, I7, I8"
	case c.Profile == spec.ProfileHints:
		return "I1, I2h-I5h, I6, I7"
	}
	return "I1-I6"
}

// backoffRule is profile p's backoff rule and its boundary, in short.
func backoffRule(p spec.Profile) (id, boundary string) {
	if p.HasHints() {
		return "R7h", "expiry truncated to its one-second window; backing off while that window is not before now's"
	}
	return "R7", "still backing off while now <= expiry"
}

// targets names what a trace replayed on.
func (t *trace) targets() string {
	if t.Impl {
		return "model and impl"
	}
	return "model"
}

// writeText prints a replay: a header, each step (unless quiet) and a
// summary line with every problem.
func writeText(out io.Writer, t *trace, quiet bool) {
	w := controlEscaper{out}
	sc := &t.File.sc
	if !quiet {
		fmt.Fprintf(w, "scenario %s, replayed on %s\nfile: %s\n", sc.Name, t.targets(), t.File.path)
		for _, c := range sc.Comment {
			fmt.Fprintf(w, "# %s\n", c)
		}
		if len(sc.Rules) > 0 {
			fmt.Fprintf(w, "rules: %s\n", strings.Join(sc.Rules, " "))
		}
		fmt.Fprintf(w, "profile: %s\n", profileLine(t.Cfg))
		fmt.Fprintf(w, "config: %s\n", configLine(t))
		for _, k := range sc.KnownDifferences {
			fmt.Fprintf(w, "known difference for %s: %s (%s)\n", strings.Join(k.Profiles, ", "), k.Reason, k.Source)
		}
	}
	for i := range t.Steps {
		s := &t.Steps[i]
		if quiet {
			continue
		}
		fmt.Fprintf(w, "\nstep %d (line %d): %s\n", s.N, s.Line, s.Op)
		model := schedqtest.Render(s.Model, schedqtest.Start, t.Cfg)
		switch {
		case s.Impl == nil && s.ImplResult != "":
			w.Write([]byte(indent(s.Result, "  model: ")))
			w.Write([]byte(indent(s.ImplResult, "  impl:  ")))
			w.Write([]byte(indent(model, "  ")))
		case s.Impl == nil:
			w.Write([]byte(indent(s.Result, "  ")))
			w.Write([]byte(indent(model, "  ")))
		default:
			w.Write([]byte(indent(s.Result, "  model: ")))
			w.Write([]byte(indent(s.ImplResult, "  impl:  ")))
			impl := schedqtest.Render(*s.Impl, schedqtest.Start, t.Cfg)
			if impl == model {
				w.Write([]byte(indent(model, "  ")))
			} else {
				fmt.Fprintln(w, "  model state:")
				w.Write([]byte(indent(model, "    ")))
				fmt.Fprintln(w, "  impl state:")
				w.Write([]byte(indent(impl, "    ")))
			}
		}
		for _, p := range s.Problems {
			w.Write([]byte(hang(p.String(), "  !! ", "     ")))
		}
	}
	if !quiet {
		fmt.Fprintln(w)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	writeSummary(w, t)
}

func configLine(t *trace) string {
	c := t.Cfg
	s := fmt.Sprintf("initial-backoff=%v max-backoff=%v leftover=%v", c.PodInitialBackoffDuration, c.PodMaxBackoffDuration, c.PodMaxInUnschedulablePodsDuration)
	if t.File.sc.Config.IsZero() {
		s += " (defaults)"
	}
	return s
}

func writeSummary(w io.Writer, t *trace) {
	name := t.File.sc.Name
	n := t.problemCount()
	if t.Stale != "" {
		fmt.Fprintf(w, "%s: FAIL: stale known difference: %s\n", name, t.Stale)
	}
	if len(t.Known) > 0 {
		fmt.Fprintf(w, "%s: known difference for %s, as the file declares:\n", name, profileImpl)
		for _, k := range t.Known {
			w.Write([]byte(hang(k, "  ", "  ")))
		}
	}
	switch {
	case t.Stale != "" && n == 0:
		return
	case t.Err != nil:
		fmt.Fprintf(w, "%s: ERROR after %s: %v\n", name, steps(len(t.Steps)), t.Err)
	case n == 0:
		fmt.Fprintf(w, "%s: ok: %s\n", name, t.okLine())
		return
	default:
		fmt.Fprintf(w, "%s: FAIL: %d problem(s) in %s on %s\n", name, n, steps(len(t.Steps)), t.targets())
	}
	first := 0
	for _, s := range t.Steps {
		for _, p := range s.Problems {
			if first == 0 {
				first = s.N
			}
			w.Write([]byte(hang(fmt.Sprintf("step %d (line %d) %s: %s", s.N, s.Line, s.Op, p), "  ", "  ")))
		}
	}
	if first > 0 {
		fmt.Fprintf(w, "the operations up to the first problem (step %d), as a scenario:\n", first)
		w.Write([]byte(indent(schedqtest.FormatOps(t.File.sc.Ops[:first]), "  ")))
	}
}

func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

// okLine is the verdict of a replay without problems.
func (t *trace) okLine() string {
	if len(t.Known) > 0 {
		return fmt.Sprintf("%s on %s, invariants %s held on the model after every step, impl differs from the model as the file declares (known difference)",
			steps(len(t.Steps)), t.targets(), invariantIDs(t.Cfg))
	}
	s := fmt.Sprintf("%s on %s, invariants %s held after every step", steps(len(t.Steps)), t.targets(), invariantIDs(t.Cfg))
	switch {
	case t.Impl:
		s += ", model and impl agree"
	case t.ImplNA != "":
		s += "; impl n/a: " + t.ImplNA
	}
	return s
}

// controlEscaper writes control characters other than newline and tab as
// \xNN: names come from files and must not drive the terminal.
type controlEscaper struct{ w io.Writer }

func (c controlEscaper) Write(b []byte) (int, error) {
	clean := true
	for _, x := range b {
		if (x < 0x20 && x != '\n' && x != '\t') || x == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return c.w.Write(b)
	}
	var e []byte
	for _, x := range b {
		if (x < 0x20 && x != '\n' && x != '\t') || x == 0x7f {
			e = fmt.Appendf(e, "\\x%02x", x)
		} else {
			e = append(e, x)
		}
	}
	if _, err := c.w.Write(e); err != nil {
		return 0, err
	}
	return len(b), nil
}
