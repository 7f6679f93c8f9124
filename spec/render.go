package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Format renders the snapshot the way every schedq tool prints a queue
// state: one line per place, pods sorted by key, then the cycle counters.
//
//	now=+1.000000001s
//	activeQ: a(prio=10 ts=+0s first=+0s attempts=0)
//	backoffQ: b(ts=+1s first=+0s attempts=2 expiry=+3s plugins=NodeResourcesFit)
//	unschedulablePods: c(ts=+1s first=+0s attempts=1 plugins=NodeResourcesFit,TaintToleration)
//	inFlight: d(ts=+0s first=+0s attempts=1)
//	schedulingCycle=3 moveRequestCycle=1
//
// Times are relative to start and nanosecond exact (Go duration syntax), so
// the R7 boundary, expiry versus expiry+1ns, shows; with a zero start they
// are absolute (RFC 3339 with nanoseconds); an unset time prints "-". Every backoffQ pod shows its
// backoff expiry under cfg (R7). A pod of namespace "ns" is shown by name,
// any other by key; fields at their zero value are left out, except ts and
// attempts. An empty place prints "-"; a closed queue ends the last line
// with "closed". The format is stable: scenario files store it.
func (s *Snapshot) Format(start time.Time, cfg Config) string {
	t := func(x time.Time) string {
		switch {
		case x.IsZero():
			return "-"
		case start.IsZero():
			return x.Format(time.RFC3339Nano)
		}
		d := x.Sub(start)
		if d < 0 {
			return d.String()
		}
		return "+" + d.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "now=%s\n", t(s.Now))
	for _, pl := range s.Places() {
		b.WriteString(pl.Loc.String())
		b.WriteString(":")
		if len(pl.Pods) == 0 {
			b.WriteString(" -")
		}
		for i := range pl.Pods {
			p := &pl.Pods[i]
			b.WriteString(" ")
			b.WriteString(formatPodName(p.Pod))
			var f []string
			if p.Pod != nil {
				if p.Pod.Group != "" && s.PodGroups != nil {
					f = append(f, "group="+p.Pod.Group)
				}
				if p.Pod.Priority != 0 {
					f = append(f, fmt.Sprintf("prio=%d", p.Pod.Priority))
				}
				if p.Pod.UID != UID("uid-"+p.Pod.Name) {
					f = append(f, fmt.Sprintf("uid=%s", p.Pod.UID))
				}
				if len(p.Pod.Labels) > 0 {
					f = append(f, "labels=("+formatLabels(p.Pod.Labels)+")")
				}
				for _, term := range p.Pod.RequiredAffinityTerms {
					a := formatLabels(term.MatchLabels)
					if len(term.Namespaces) > 0 {
						a += " in " + strings.Join(term.Namespaces, ",")
					}
					f = append(f, "affinity=("+a+")")
				}
				if p.Pod.ResourceVersion != "" {
					f = append(f, "rv="+p.Pod.ResourceVersion)
				}
				if p.Pod.Status != "" {
					f = append(f, "status="+p.Pod.Status)
				}
			}
			f = append(f, "ts="+t(p.Timestamp))
			if !p.InitialAttemptTimestamp.IsZero() {
				f = append(f, "first="+t(p.InitialAttemptTimestamp))
			}
			f = append(f, fmt.Sprintf("attempts=%d", p.Attempts))
			// A member backs off with its group: the entity's expiry is
			// the one that counts (G6), shown on the entity.
			if pl.Loc == InBackoffQ && (p.Pod == nil || p.Pod.Group == "" || s.PodGroups == nil) {
				f = append(f, "expiry="+t(cfg.BackoffExpiry(p)))
			}
			if len(p.UnschedulablePlugins) > 0 {
				f = append(f, "plugins="+strings.Join(p.UnschedulablePlugins, ","))
			}
			// The fields of the hints profile; in the classic one only
			// gatedBy (R17) can show.
			f = append(f, p.HintFields.fields(t)...)
			b.WriteString("(" + strings.Join(f, " ") + ")")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "schedulingCycle=%d moveRequestCycle=%d", s.SchedulingCycle, s.MoveRequestCycle)
	if s.Closed {
		b.WriteString(" closed")
	}
	b.WriteString("\n")
	if s.PodGroups != nil {
		b.WriteString(s.PodGroups.format(start))
	}
	if cfg.Profile.HasHints() {
		// R15: the in-flight list, markers and event records in order.
		b.WriteString("inFlightEvents:")
		if len(s.InFlightEvents) == 0 {
			b.WriteString(" -")
		}
		for _, e := range s.InFlightEvents {
			b.WriteString(" " + e.String())
		}
		b.WriteString("\n")
	}
	return b.String()
}

func formatPodName(p *Pod) string {
	switch {
	case p == nil:
		return "<nil pod>"
	case p.Namespace == "ns":
		return p.Name
	}
	return string(p.Key())
}

func formatLabels(l map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		kv = append(kv, k+"="+l[k])
	}
	return strings.Join(kv, ",")
}
