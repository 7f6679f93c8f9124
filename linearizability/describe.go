package linearizability

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// describer renders operations and states in queue terms. Times are shown
// relative to the history's start.
type describer struct{ start time.Time }

func (d describer) at(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return "+" + t.Sub(d.start).String()
}

func podName(p *spec.Pod) string {
	if p == nil {
		return "<nil>"
	}
	if p.Namespace == Namespace {
		return p.Name
	}
	return string(p.Key())
}

func errName(err error) string {
	if err == nil {
		return "ok"
	}
	if s := schedqtest.Sentinel(err); s != nil {
		return strings.TrimPrefix(s.Error(), "schedq: ")
	}
	return err.Error()
}

// operation is the short label on the timeline bar (plain text): the
// operation's line in the scenario language and what it returned.
func (d describer) operation(in Input, out Output) string {
	switch {
	case in.Op.Kind == KindSnapshot && out.Snapshot != nil:
		s := out.Snapshot
		return fmt.Sprintf("snapshot → a%d b%d u%d f%d #%d", len(s.ActiveQ), len(s.BackoffQ), len(s.UnschedulablePods), len(s.InFlight), s.SchedulingCycle)
	case in.Op.Kind == schedqtest.KindPop && out.Err == nil && out.Info != nil:
		return fmt.Sprintf("pop → %s #%d", podName(out.Info.Pod), out.Cycle)
	case in.Op.Kind == schedqtest.KindPop && out.Err == nil && out.Group != nil:
		names := make([]string, len(out.Group.Members))
		for i := range out.Group.Members {
			names[i] = podName(out.Group.Members[i].Pod)
		}
		return fmt.Sprintf("pop → group %s [%s] #%d", out.Group.PodGroup.Name, strings.Join(names, ","), out.Cycle)
	case in.Op.Kind == schedqtest.KindNominated && out.Err == nil:
		names := make([]string, len(out.Nominated))
		for i, p := range out.Nominated {
			names[i] = podName(p)
		}
		return fmt.Sprintf("%s → [%s]", in.Op, strings.Join(names, ","))
	}
	return in.Op.String() + " → " + errName(out.Err)
}

// long is operation with the details a plain-text listing needs: the
// attempts and Timestamp of a pod handed over, what a Snapshot saw.
func (d describer) long(in Input, out Output) string {
	s := d.operation(in, out)
	switch {
	case out.Info != nil:
		s += fmt.Sprintf("  [attempts %d, ts %s, first %s]", out.Info.Attempts, d.at(out.Info.Timestamp), d.at(out.Info.InitialAttemptTimestamp))
	case out.Group != nil:
		s += "  [" + describeEntity(&spec.QueuedEntity{Group: out.Group}) + "]"
	case in.Popped != nil:
		s += fmt.Sprintf("  [attempts %d]", in.Popped.Info.Attempts)
	case in.PoppedGroup != nil:
		s += fmt.Sprintf("  [cycle %d, attempts %d]", in.PoppedGroup.Cycle, in.PoppedGroup.Info.Attempts)
	case out.Snapshot != nil:
		s += "\n              " + strings.ReplaceAll(html.UnescapeString(d.snapshot(out.Snapshot, nil)), "<br>", "\n              ")
	}
	return s
}

func (d describer) info(p *spec.QueuedPodInfo, loc spec.Location, cfg *spec.Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(prio %d, attempts %d, ts %s", podName(p.Pod), p.Pod.Priority, p.Attempts, d.at(p.Timestamp))
	if loc == spec.InBackoffQ && cfg != nil {
		fmt.Fprintf(&b, ", until %s", d.at(cfg.BackoffExpiry(p)))
	}
	if len(p.UnschedulablePlugins) > 0 {
		fmt.Fprintf(&b, ", rejected by %s", strings.Join(p.UnschedulablePlugins, ","))
	}
	b.WriteString(")")
	return b.String()
}

func (d describer) snapshot(s *spec.Snapshot, cfg *spec.Config) string {
	lines := []string{fmt.Sprintf("now %s · schedulingCycle %d · moveRequestCycle %d", d.at(s.Now), s.SchedulingCycle, s.MoveRequestCycle)}
	if s.Closed {
		lines[0] += " · closed"
	}
	for _, pl := range s.Places() {
		parts := make([]string, len(pl.Pods))
		for i := range pl.Pods {
			parts[i] = d.info(&pl.Pods[i], pl.Loc, cfg)
		}
		if pl.Loc == spec.InActiveQ && len(pl.Pods) > 0 {
			max := spec.MaximalPods(pl.Pods)
			names := make([]string, len(max))
			for i, k := range max {
				names[i] = strings.TrimPrefix(string(k), Namespace+"/")
			}
			parts = append(parts, "⇒ Pop may return "+strings.Join(names, " or "))
		}
		lines = append(lines, fmt.Sprintf("%s: %s", pl.Loc, strings.Join(parts, " ")))
	}
	for i := range lines {
		lines[i] = html.EscapeString(lines[i])
	}
	return strings.Join(lines, "<br>")
}

// state is the tooltip text of a state (HTML).
func (d describer) state(m *model.Model) string {
	s := m.Snapshot()
	cfg := m.Config()
	return d.snapshot(&s, &cfg)
}

// metadata is the tooltip text of an operation (HTML).
func (d describer) metadata(md Metadata) string {
	who := fmt.Sprintf("client %d", md.Client)
	if md.Client < 0 {
		who = "coordinator"
	}
	lines := []string{fmt.Sprintf("%s, operation %d: %s", who, md.Seq, d.operation(md.In, md.Out))}
	for _, p := range md.In.Pods {
		lines = append(lines, "pod passed: "+describePod(p))
	}
	if p := md.In.Popped; p != nil {
		lines = append(lines, "handed back: "+d.info(&p.Info, spec.Nowhere, nil)+fmt.Sprintf(" from cycle %d", p.Cycle))
	}
	if p := md.In.PoppedGroup; p != nil {
		lines = append(lines, "handed back: "+describeEntity(&spec.QueuedEntity{Group: &p.Info})+fmt.Sprintf(" from cycle %d", p.Cycle))
	}
	if md.Out.Info != nil {
		lines = append(lines, "returned: "+d.info(md.Out.Info, spec.InFlight, nil))
	}
	if md.Out.Group != nil {
		lines = append(lines, "returned: "+describeEntity(&spec.QueuedEntity{Group: md.Out.Group}))
	}
	if md.Out.Err != nil {
		lines = append(lines, "error: "+md.Out.Err.Error())
	}
	for i := range lines {
		lines[i] = html.EscapeString(lines[i])
	}
	if md.Out.Snapshot != nil {
		lines = append(lines, "<strong>observed:</strong><br>"+d.snapshot(md.Out.Snapshot, nil))
	}
	return strings.Join(lines, "<br>")
}

func describePod(p *spec.Pod) string {
	if p == nil {
		return "<nil>"
	}
	s := fmt.Sprintf("%s uid=%s prio=%d", p.Key(), p.UID, p.Priority)
	if len(p.Labels) > 0 {
		s += fmt.Sprintf(" labels=%v", p.Labels)
	}
	for _, t := range p.RequiredAffinityTerms {
		s += fmt.Sprintf(" affinity=%v", t.MatchLabels)
	}
	if p.Status != "" {
		s += " status=" + p.Status
	}
	return s
}
