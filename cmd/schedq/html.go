package main

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The page is XHTML-compatible HTML (every element closed, no named
// entities but XML's), so that a test can read it with encoding/xml; every
// text from the scenario file goes through html/template's escaping.
//
//go:embed page.html.tmpl
var pageTemplate string

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"add": func(a, b int) int { return a + b },
	"sub": func(a, b int) int { return a - b },
	"mod": func(a, b int) int { return a % b },
}).Parse(pageTemplate))

// Places as the page names them: the CSS class and data-place of a cell.
const (
	placeActive        = "activeQ"
	placeBackoff       = "backoffQ"
	placeUnschedulable = "unschedulablePods"
	placeInFlight      = "inFlight"
	placeGone          = "gone"
	placeNotYet        = "" // before the pod first appears
	// The podgroups profile's two waiting lists of members, outside the
	// four places (G2, G4, G11).
	placePending    = "pendingPodGroupPods"
	placeIncomplete = "incompletePodGroupPods"
)

// podView is one pod in one snapshot as the page draws it: its place
// (one of the four, or a member's waiting list), its QueuedPodInfo, and,
// for a member of a pod group, its group and the group's queued entity.
type podView struct {
	place  string
	loc    spec.Location
	info   spec.QueuedPodInfo
	group  spec.PodGroupKey
	entity *spec.PodGroupEntity // nil: the member is not in its group's entity
}

func findPod(s *spec.Snapshot, k spec.PodKey) podView {
	loc, info := s.Find(k)
	v := podView{place: placeName(loc), loc: loc, info: info}
	if loc == spec.Nowhere && s.PodGroups != nil {
		for _, l := range []struct {
			place string
			pods  []spec.QueuedPodInfo
		}{{placePending, s.PodGroups.PendingPodGroupPods}, {placeIncomplete, s.PodGroups.IncompletePodGroupPods}} {
			for i := range l.pods {
				if l.pods[i].Pod != nil && l.pods[i].Key() == k {
					v.place, v.info = l.place, l.pods[i]
				}
			}
		}
	}
	if v.info.Pod != nil {
		v.group = v.info.Pod.GroupKey()
	}
	if e, ok := s.PodGroups.Entity(v.group); ok && v.group != "" && slices.Contains(e.Members, k) {
		v.entity = &e
	}
	return v
}

// backoffExpiry is when the pod's backoff completes: a group member backs
// off with its entity (G6), whose expiry is zero when it has none (it is
// then not backing off: ok is false); any other pod by its own fields.
func backoffExpiry(cfg spec.Config, v *podView) (exp time.Time, ok bool) {
	if v.entity != nil {
		return v.entity.BackoffExpiry, !v.entity.BackoffExpiry.IsZero()
	}
	return cfg.BackoffExpiry(&v.info), true
}

func isBackingOff(cfg spec.Config, v *podView, now time.Time) bool {
	if v.entity != nil {
		return spec.GroupIsBackingOff(v.entity.BackoffExpiry, now)
	}
	return cfg.IsBackingOff(&v.info, now)
}

// groupText is what the page says of a member's group: the entity's place
// and members, whether its cycle is open and which members wait pending.
func groupText(s *spec.Snapshot, v *podView) string {
	if v.group == "" {
		return ""
	}
	name := schedqtest.NameOf(spec.PodKey(v.group))
	d := "; member of group " + name
	if _, known := s.PodGroups.Known(v.group); !known {
		d += " (its PodGroup object is not known)"
	}
	if e, ok := s.PodGroups.Entity(v.group); ok {
		var ms []string
		for _, m := range e.Members {
			ms = append(ms, schedqtest.NameOf(m))
		}
		d += fmt.Sprintf(": entity in %s with %s, attempts=%d", e.Place, strings.Join(ms, ","), e.Attempts)
	} else {
		d += ": no queued entity"
	}
	if s.PodGroups != nil && slices.Contains(s.PodGroups.InCycle, v.group) {
		d += ", its cycle is open"
	}
	var pending []string
	if s.PodGroups != nil {
		for i := range s.PodGroups.PendingPodGroupPods {
			if p := s.PodGroups.PendingPodGroupPods[i].Pod; p != nil && p.GroupKey() == v.group {
				pending = append(pending, p.Name)
			}
		}
	}
	if len(pending) > 0 {
		d += ", pending members " + strings.Join(pending, ",")
	}
	return d
}

func placeName(l spec.Location) string {
	switch l {
	case spec.InActiveQ:
		return placeActive
	case spec.InBackoffQ:
		return placeBackoff
	case spec.InUnschedulablePods:
		return placeUnschedulable
	case spec.InFlight:
		return placeInFlight
	}
	return placeGone
}

// Geometry of the timeline, in SVG user units (pixels).
const (
	rowH     = 28
	barH     = 20
	opChars  = 34 // an operation's label is cut to this many characters
	counterH = 20
	labelPad = 12
)

type pageData struct {
	Title   string
	Name    string
	Path    string
	Comment []string
	Rules   string
	Config  string
	Profile string
	// BackoffRule is the profile's backoff rule (R7, R7h), which the
	// expiry marks follow.
	BackoffRule string
	Targets     string
	OK          bool
	Verdict     string
	Err         string
	Notes       []string
	Problems    []pageProblem
	Known       []string
	Legend      []legendItem
	Impl        bool

	W, H      int
	LabelW    int
	GridX     int
	GridY     int
	GridW     int
	GridH     int
	Columns   []column
	Rows      []row
	Counters  []counterRow
	Moves     []moveMark
	Steps     []stepView
	ImplNote  string
	BottomY   int
	CounterY  int
	ProblemsY int
}

type pageProblem struct {
	Step int
	Text string
}

type legendItem struct {
	Class, Label, Help string
}

type column struct {
	N                 int
	X, CX, W          int
	OpLabel, OpTitle  string
	OpClass           string
	Clock             string
	ClockShown        bool
	ClockY            int
	LabelY            int
	Problem           bool
	ProblemTitle      string
	MoveRequest       bool
	SchedulingCycle   int64
	MoveRequestCycle  int64
	MoveRequestChange bool
}

type row struct {
	Key   string
	Name  string
	Group string // a member's pod group, "" for a pod alone
	Y     int    // top of the row
	TextY int
	BarY  int
	Cells []cell
	Bars  []bar
	Marks []expiryMark
}

// A cell is one pod at one step: the hover text and the data a test reads.
type cell struct {
	Step   int
	X, W   int
	Place  string
	Impl   string // the implementation's place where it differs
	Title  string
	Differ bool
}

// A bar is a run of consecutive steps in one place with the same entry
// (attempts, expiry, plugins), drawn as one labelled block.
type bar struct {
	X, W  int
	Place string
	Label string
	// HatchX..HatchX+HatchW is where a backoffQ bar's backoff has
	// completed (HatchW 0: nowhere); HatchRelX is HatchX within the bar.
	HatchX, HatchW, HatchRelX int
}

type expiryMark struct {
	Step     int
	X, Y, Y2 int
	Title    string
	Path     string
}

type moveMark struct {
	Step  int
	X     int
	Title string
}

type counterRow struct {
	Label  string
	Y      int
	TextY  int
	Values []counterValue
}

type counterValue struct {
	CX      int
	Text    string
	Title   string // hover text, if any
	Changed bool
}

type stepView struct {
	N          int
	Line       int
	Clock      string
	Op         string
	OpClass    string
	Result     string
	ImplResult string
	State      string
	ImplState  string
	Problems   []string
	Move       bool
	// Why explains a move request: for each pod in unschedulablePods
	// before it, the preCheck's verdict, the hint answers and the
	// strategy (hints profiles), and a gated pod's PreEnqueue verdict.
	Why []string
}

// moveReasons explains a move request step to the page: why each pod in
// unschedulablePods before it moved or stayed.
func moveReasons(cfg spec.Config, before *spec.Snapshot, mv *spec.MoveRecord) []string {
	if mv == nil {
		return nil
	}
	var out []string
	for i := range before.UnschedulablePods {
		info := &before.UnschedulablePods[i]
		if info.Pod == nil {
			continue
		}
		var w []string
		if mv.PreCheck != nil {
			if mv.PreCheck(info.Pod) {
				w = append(w, "preCheck lets it through")
			} else {
				w = append(w, "preCheck holds it")
			}
		}
		if info.Gated() {
			if g := cfg.RunPreEnqueue(info.Pod, info.GatingPlugin); g != "" {
				w = append(w, "PreEnqueue: "+g+" refuses it")
			} else {
				w = append(w, "PreEnqueue: admitted now (gated by "+info.GatingPlugin+" before)")
			}
		}
		if cfg.Profile.HasHints() {
			var hs []string
			for _, a := range cfg.HintAnswers(info, mv.Occurrence) {
				hs = append(hs, fmt.Sprintf("%s for %s: %s", a.Plugin, schedqtest.EventName(a.Registration), a.Hint))
			}
			if len(hs) == 0 && mv.Occurrence.Event.IsWildCard() {
				hs = append(hs, "none asked (a wildcard event)")
			} else if len(hs) == 0 {
				hs = append(hs, "none asked (no rejector registered for the event)")
			}
			w = append(w, "hints "+strings.Join(hs, ", ")+"; strategy "+cfg.PodStrategy(info, mv.Occurrence).String())
		}
		if len(w) > 0 {
			out = append(out, schedqtest.NameOf(info.Key())+": "+strings.Join(w, "; "))
		}
	}
	return out
}

func relTime(t time.Time) string {
	if t.IsZero() {
		return "never" // a zero time is unset, not a date before the start
	}
	d := t.Sub(schedqtest.Start)
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}

// opClass groups operations for colouring the labels.
func opClass(k schedqtest.Kind) string {
	switch k {
	case schedqtest.KindTick:
		return "op-tick"
	case schedqtest.KindMove, schedqtest.KindActivate, schedqtest.KindAssignedAdd, schedqtest.KindAssignedUpdate, schedqtest.KindFlushLeftover:
		return "op-move"
	case schedqtest.KindFlushBackoff:
		return "op-flush"
	case schedqtest.KindPop, schedqtest.KindFail, schedqtest.KindDone:
		return "op-cycle"
	}
	return "op-other"
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// buildPage lays out the timeline of a trace in the order a reader meets
// it: the header and legend, the grid's geometry, one column per step, one
// row per pod, the counters under the grid and the operation list.
func buildPage(t *trace) pageData {
	p := pageHeader(t)
	keys := podsInOrder(t)
	colW := layoutGrid(&p, t, keys)
	stepColumns(&p, t, colW)
	for r, k := range keys {
		p.Rows = append(p.Rows, podRow(t, &p, k, r, colW))
	}
	p.Counters = counterRows(t, p.Columns, p.CounterY)
	stepList(&p, t)
	return p
}

// pageHeader is what the page says above the timeline: the scenario, the
// verdict, the problems and notes, and the legend of places.
func pageHeader(t *trace) pageData {
	sc := &t.File.sc
	p := pageData{
		Title:   "schedq scenario " + sc.Name,
		Name:    sc.Name,
		Path:    t.File.path,
		Comment: paragraphs(sc.Comment),
		Rules:   strings.Join(sc.Rules, " "),
		Config:  configLine(t),
		Profile: profileLine(t.Cfg),
		Targets: t.targets(),
		Impl:    t.Impl,
		Notes:   t.Notes,
	}
	for _, k := range sc.KnownDifferences {
		p.Known = append(p.Known, fmt.Sprintf("%s: %s (%s)", strings.Join(k.Profiles, ", "), k.Reason, k.Source))
	}
	n := t.problemCount()
	switch {
	case t.Err != nil:
		p.Err = t.Err.Error()
		p.Verdict = "error after " + steps(len(t.Steps))
	case t.Stale != "":
		p.Verdict = "FAIL: stale known difference: " + t.Stale
	case n == 0:
		p.OK = true
		p.Verdict = "ok: " + t.okLine()
	default:
		p.Verdict = fmt.Sprintf("FAIL: %d problem(s) in %s on %s", n, steps(len(t.Steps)), t.targets())
	}
	for _, k := range t.Known {
		p.Notes = append(p.Notes, "known difference: "+k)
	}
	for _, s := range t.Steps {
		for _, pr := range s.Problems {
			p.Problems = append(p.Problems, pageProblem{Step: s.N, Text: fmt.Sprintf("step %d (line %d) %s: %s", s.N, s.Line, s.Op, pr)})
		}
	}
	rule, _ := backoffRule(t.Cfg.Profile)
	p.BackoffRule = rule
	completed := "now is past the expiry (" + rule + "): the next backoffQ flush (R5) releases it"
	if t.Cfg.Profile.HasHints() {
		completed = "now's one-second window is past the expiry's (" + rule + "): the next backoffQ flush (R5) releases it"
	}
	p.Legend = []legendItem{
		{placeActive, "activeQ", "waiting to be popped"},
		{placeBackoff, "backoffQ", "backing off; the label is the expiry"},
		{placeBackoff + " hatch", "backoffQ, backoff completed", completed},
		{placeUnschedulable, "unschedulablePods", "waits for an event a rejecting plugin registered for"},
		{placeInFlight, "in flight", "popped, being scheduled; the label is the attempt"},
		{placeGone, "gone", "deleted, done, or never queued again"},
	}
	if t.Cfg.Profile == spec.ProfilePodGroups {
		p.Legend = append(p.Legend,
			legendItem{placePending, "pendingPodGroupPods", "a member waiting for its group's open cycle to end (G4)"},
			legendItem{placeIncomplete, "incompletePodGroupPods", "a member waiting for its group's PodGroup object (G11)"})
	}
	return p
}

// podsInOrder lists the pods of a trace in order of first appearance, in
// the model's snapshots or impl's: one row each.
func podsInOrder(t *trace) []spec.PodKey {
	var keys []spec.PodKey
	seen := map[spec.PodKey]bool{}
	note := func(s *spec.Snapshot) {
		lists := [][]spec.QueuedPodInfo{}
		for _, pl := range s.Places() {
			lists = append(lists, pl.Pods)
		}
		if s.PodGroups != nil {
			lists = append(lists, s.PodGroups.PendingPodGroupPods, s.PodGroups.IncompletePodGroupPods)
		}
		for _, pods := range lists {
			for i := range pods {
				if pods[i].Pod == nil {
					continue
				}
				if k := pods[i].Key(); !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
	}
	for i := range t.Steps {
		note(&t.Steps[i].Model)
		if t.Steps[i].Impl != nil {
			note(t.Steps[i].Impl)
		}
	}
	return keys
}

// layoutGrid sizes the page for the pods' rows and the trace's steps: the
// label column, the grid, the counters and the room the rotated labels
// need. It returns the width of a column.
func layoutGrid(p *pageData, t *trace, keys []spec.PodKey) (colW int) {
	maxName := 8
	for _, k := range keys {
		maxName = max(maxName, len([]rune(schedqtest.NameOf(k))))
	}
	// Wide enough for the pod names and the counter labels.
	p.LabelW = max(min(24, maxName)*8, 110) + 2*labelPad
	// Columns fit a 1400-pixel window while they can stay readable; a
	// long scenario scrolls.
	colW = min(64, max(40, 1120/max(1, len(t.Steps))))
	// The labels are rotated by 40 degrees: a label of n characters
	// rises about n*7*sin(40°) = 4.5n pixels.
	longestOp, longestClock := 0, 0
	for _, s := range t.Steps {
		longestOp = max(longestOp, min(opChars, len([]rune(fmt.Sprintf("%d  %s", s.N, s.Op)))))
		longestClock = max(longestClock, len(relTime(s.Model.Now)))
	}
	headerH := max(60, longestOp*9/2+30)
	footerH := max(50, longestClock*4+40)
	p.GridX, p.GridY = p.LabelW, headerH
	p.GridW = colW * len(t.Steps)
	p.GridH = rowH * max(1, len(keys))
	p.CounterY = p.GridY + p.GridH + 8
	counters := 2
	if slices.ContainsFunc(t.Steps, func(s step) bool { return s.Waiting > 0 }) {
		counters++
	}
	if t.Cfg.Profile.HasHints() {
		counters++ // the in-flight list
	}
	p.BottomY = p.CounterY + counters*counterH + 4
	p.W = p.GridX + p.GridW + 130 // room for the last rotated label
	p.H = p.BottomY + footerH
	return colW
}

// stepColumns adds a column per step: its rotated operation label, its
// clock, and the marks of a problem or a move request.
func stepColumns(p *pageData, t *trace, colW int) {
	prevNow, prevMRC := t.Initial.Now, t.Initial.MoveRequestCycle
	for i := range t.Steps {
		s := &t.Steps[i]
		c := column{
			N: s.N, X: p.GridX + i*colW, W: colW,
			OpLabel: truncate(fmt.Sprintf("%d  %s", s.N, s.Op), opChars), OpTitle: fmt.Sprintf("step %d (line %d): %s\n%s", s.N, s.Line, s.Op, s.Result),
			OpClass: opClass(s.Op.Kind),
			Clock:   relTime(s.Model.Now), SchedulingCycle: s.Model.SchedulingCycle, MoveRequestCycle: s.Model.MoveRequestCycle,
		}
		c.CX = c.X + colW/2
		c.LabelY = p.GridY - 8
		c.ClockY = p.BottomY + 6
		c.ClockShown = i == 0 || !s.Model.Now.Equal(prevNow)
		c.MoveRequestChange = s.Model.MoveRequestCycle != prevMRC
		if len(s.Problems) > 0 {
			c.Problem = true
			var ps []string
			for _, pr := range s.Problems {
				ps = append(ps, pr.String())
			}
			c.ProblemTitle = strings.Join(ps, "\n")
		}
		if c.MoveRequestChange {
			c.MoveRequest = true
			p.Moves = append(p.Moves, moveMark{Step: s.N, X: c.X, Title: fmt.Sprintf("step %d %s: move request, moveRequestCycle %d -> %d", s.N, s.Op, prevMRC, s.Model.MoveRequestCycle)})
		}
		prevNow, prevMRC = s.Model.Now, s.Model.MoveRequestCycle
		p.Columns = append(p.Columns, c)
	}
}

// podRow is the row of pod k, the r-th to appear: a cell per step, bars
// joining the steps the pod spends in one place unchanged, the hatch of a
// completed backoff and the mark of the step its backoff expired.
func podRow(t *trace, p *pageData, k spec.PodKey, r, colW int) row {
	rule, boundary := backoffRule(t.Cfg.Profile)
	rw := newRow(t, k, p.GridY+r*rowH)
	appeared := false
	type entry struct {
		place string
		info  spec.QueuedPodInfo
	}
	var run *bar
	var runEntry entry
	var prevBackingOff, prevInBackoff bool
	for i := range t.Steps {
		s := &t.Steps[i]
		v := findPod(&s.Model, k)
		loc, info, place := v.loc, v.info, v.place
		if place != placeGone {
			appeared = true
		}
		if !appeared {
			place = placeNotYet
		}
		x := p.GridX + i*colW
		rw.Cells = append(rw.Cells, podCell(t, s, k, &v, place, x, colW))

		// Bars.
		cur := entry{place, info}
		same := run != nil && runEntry.place == cur.place && (place == placeGone || place == placeNotYet ||
			(runEntry.info.Attempts == info.Attempts && runEntry.info.Timestamp.Equal(info.Timestamp) &&
				slices.Equal(runEntry.info.UnschedulablePlugins, info.UnschedulablePlugins)))
		if same {
			run.W += colW
		} else if place != placeNotYet {
			rw.Bars = append(rw.Bars, bar{X: x, W: colW, Place: place})
			run, runEntry = &rw.Bars[len(rw.Bars)-1], cur
		} else {
			run = nil
		}

		// Backoff completion within backoffQ.
		inBackoff := loc == spec.InBackoffQ
		backingOff := inBackoff && isBackingOff(t.Cfg, &v, s.Model.Now)
		if inBackoff && !backingOff {
			if run.HatchX == 0 {
				run.HatchX = x
			}
			run.HatchW = x + colW - run.HatchX
			if prevInBackoff && prevBackingOff {
				e, _ := backoffExpiry(t.Cfg, &v)
				exp := relTime(e)
				rw.Marks = append(rw.Marks, expiryMark{Step: s.N, X: x, Y: rw.BarY - 3, Y2: rw.BarY + barH + 3,
					Title: fmt.Sprintf("%s: backoff expired at %s (%s: %s); now %s, so the next backoffQ flush releases it",
						schedqtest.NameOf(k), exp, rule, boundary, relTime(s.Model.Now)),
					Path: fmt.Sprintf("M%d %d l-5 -6 h10 z", x, rw.BarY-1)})
			}
		}
		prevInBackoff, prevBackingOff = inBackoff, backingOff
	}
	labelBars(t, &rw, k, p.GridX, colW)
	return rw
}

// newRow is pod k's row at height y, before its cells: its name, and its
// group's (the group of its first appearance: an update cannot move a
// member, G9).
func newRow(t *trace, k spec.PodKey, y int) row {
	rw := row{Key: string(k), Name: truncate(schedqtest.NameOf(k), 24), Y: y}
	for i := range t.Steps {
		if v := findPod(&t.Steps[i].Model, k); v.group != "" {
			rw.Group = schedqtest.NameOf(spec.PodKey(v.group))
			rw.Name = truncate(schedqtest.NameOf(k)+" ["+rw.Group+"]", 24)
			break
		}
	}
	rw.TextY = rw.Y + rowH/2 + 4
	rw.BarY = rw.Y + (rowH-barH)/2
	return rw
}

// podCell is pod k's cell at step s, in place (its model view v), marked
// where impl has the pod elsewhere.
func podCell(t *trace, s *step, k spec.PodKey, v *podView, place string, x, colW int) cell {
	c := cell{Step: s.N, X: x, W: colW, Place: place}
	c.Title = cellTitle(t, s, k, v)
	if s.Impl != nil {
		if il := findPod(s.Impl, k).place; il != v.place {
			c.Differ, c.Impl = true, il
			c.Title += fmt.Sprintf("\nimpl: %s", il)
		}
	}
	return c
}

// labelBars labels each bar of pod k's row with what matters about the pod
// at its first step, and places its backoff-completed hatch.
func labelBars(t *trace, rw *row, k spec.PodKey, gridX, colW int) {
	for i := range rw.Bars {
		b := &rw.Bars[i]
		if b.HatchW > 0 {
			b.HatchRelX = b.HatchX - b.X
		}
		col := (b.X - gridX) / colW
		v := findPod(&t.Steps[col].Model, k)
		b.Label = barLabel(t, &v, b.W)
	}
}

// counterRows are the rows under the grid, a value per column:
// schedulingCycle, moveRequestCycle, the blocked Pops when some Pop waited,
// and the in-flight list of a profile with hints.
func counterRows(t *trace, cols []column, y0 int) []counterRow {
	sc := counterRow{Label: "schedulingCycle", Y: y0, TextY: y0 + 14}
	mr := counterRow{Label: "moveRequestCycle", Y: y0 + counterH, TextY: y0 + counterH + 14}
	prevSC := t.Initial.SchedulingCycle
	for _, c := range cols {
		sc.Values = append(sc.Values, counterValue{CX: c.CX, Text: fmt.Sprint(c.SchedulingCycle), Changed: c.SchedulingCycle != prevSC})
		mr.Values = append(mr.Values, counterValue{CX: c.CX, Text: fmt.Sprint(c.MoveRequestCycle), Changed: c.MoveRequestChange})
		prevSC = c.SchedulingCycle
	}
	rows := []counterRow{sc, mr}
	if slices.ContainsFunc(t.Steps, func(s step) bool { return s.Waiting > 0 }) {
		w := counterRow{Label: "blocked Pops", Y: y0 + 2*counterH, TextY: y0 + 2*counterH + 14}
		prev := 0
		for i, c := range cols {
			n := t.Steps[i].Waiting
			w.Values = append(w.Values, counterValue{CX: c.CX, Text: fmt.Sprint(n), Changed: n != prev})
			prev = n
		}
		rows = append(rows, w)
	}
	if t.Cfg.Profile.HasHints() {
		// The in-flight list (R15): its length after each step, the
		// entries on hover.
		y := y0 + len(rows)*counterH
		fl := counterRow{Label: "in-flight list", Y: y, TextY: y + 14}
		prev := len(t.Initial.InFlightEvents)
		for i, c := range cols {
			evs := t.Steps[i].Model.InFlightEvents
			title := "in-flight list after step " + fmt.Sprint(t.Steps[i].N) + ": empty"
			if len(evs) > 0 {
				var es []string
				for _, e := range evs {
					es = append(es, e.String())
				}
				title = "in-flight list after step " + fmt.Sprint(t.Steps[i].N) + " (R15): " + strings.Join(es, ", ")
			}
			fl.Values = append(fl.Values, counterValue{CX: c.CX, Text: fmt.Sprint(len(evs)), Title: title, Changed: len(evs) != prev})
			prev = len(evs)
		}
		rows = append(rows, fl)
	}
	return rows
}

// stepList is the operation list under the timeline: each step's
// operation, result and state (impl's when it differs), and why a move
// request moved what it moved, which the step's column shows on hover too.
func stepList(p *pageData, t *trace) {
	before := &t.Initial
	for i := range t.Steps {
		s := &t.Steps[i]
		v := stepView{N: s.N, Line: s.Line, Clock: relTime(s.Model.Now), Op: s.Op.String(), OpClass: opClass(s.Op.Kind),
			Result: s.Result, ImplResult: s.ImplResult, State: schedqtest.Render(s.Model, schedqtest.Start, t.Cfg),
			Move: p.Columns[i].MoveRequest, Why: moveReasons(t.Cfg, before, s.Move)}
		if len(v.Why) > 0 {
			p.Columns[i].OpTitle += "\n" + strings.Join(v.Why, "\n")
		}
		before = &s.Model
		if s.Impl != nil {
			if is := schedqtest.Render(*s.Impl, schedqtest.Start, t.Cfg); is != v.State {
				v.ImplState = is
			}
		}
		for _, pr := range s.Problems {
			v.Problems = append(v.Problems, pr.String())
		}
		p.Steps = append(p.Steps, v)
	}
}

// barLabel is the text of a bar: what matters about the pod in that
// place, shortened when the bar is narrow (about 6.5 pixels a character).
func barLabel(t *trace, v *podView, width int) string {
	loc, info := v.loc, &v.info
	fit := func(long, short string) string {
		if len(long)*13/2+10 <= width {
			return long
		}
		return short
	}
	switch loc {
	case spec.InActiveQ:
		if info.Pod != nil && info.Pod.Priority != 0 {
			return fit(fmt.Sprintf("prio %d", info.Pod.Priority), fmt.Sprintf("p%d", info.Pod.Priority))
		}
		return ""
	case spec.InBackoffQ:
		e, ok := backoffExpiry(t.Cfg, v)
		if !ok {
			return fit("no backoff", "-")
		}
		exp := relTime(e)
		return fit("until "+exp, exp)
	case spec.InUnschedulablePods:
		return strings.Join(info.UnschedulablePlugins, ",")
	case spec.InFlight:
		return fit(fmt.Sprintf("attempt %d", info.Attempts), fmt.Sprintf("#%d", info.Attempts))
	}
	return ""
}

func cellTitle(t *trace, s *step, k spec.PodKey, v *podView) string {
	loc, info := v.loc, &v.info
	head := fmt.Sprintf("%s after step %d (%s), now %s: ", schedqtest.NameOf(k), s.N, s.Op, relTime(s.Model.Now))
	if v.place == placeGone {
		return head + "not in the queue"
	}
	d := fmt.Sprintf("%s, attempts=%d, ts=%s", v.place, info.Attempts, relTime(info.Timestamp))
	if loc == spec.InBackoffQ {
		exp, ok := backoffExpiry(t.Cfg, v)
		switch {
		case !ok:
			d += ", its group's entity has no backoff"
		case isBackingOff(t.Cfg, v, s.Model.Now):
			d += ", expiry=" + relTime(exp) + " (backing off)"
		default:
			d += ", expiry=" + relTime(exp) + " (backoff completed)"
		}
	}
	if len(info.UnschedulablePlugins) > 0 {
		d += ", plugins=" + strings.Join(info.UnschedulablePlugins, ",")
	}
	return head + d + groupText(&s.Model, v)
}

// renderHTML returns the page of a trace.
func renderHTML(t *trace) ([]byte, error) {
	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, buildPage(t)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeHTMLFile writes the page of a trace to path, atomically.
func writeHTMLFile(path string, t *trace) error {
	b, err := renderHTML(t)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

// writeFileAtomic writes b to path through a temporary file renamed over
// it, so that path is never half written; a file it replaces keeps its
// permissions, a new one is 0644.
func writeFileAtomic(path string, b []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".schedq-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// paragraphs joins the comment lines of a file into paragraphs; an empty
// comment line ("#") separates them.
func paragraphs(lines []string) []string {
	var out []string
	var cur []string
	for _, l := range append(slices.Clone(lines), "") {
		if l == "" {
			if len(cur) > 0 {
				out = append(out, strings.Join(cur, " "))
			}
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	return out
}

// checkHTMLOut refuses an --html output that could destroy an input: the
// flag takes the next argument as its value, so "--html a.txt b.txt" once
// replaced the scenario a.txt with a page. An output must be named as a
// page (.html, .htm), must not be one of the inputs, and may replace only a
// page this command wrote earlier.
func checkHTMLOut(out string, inputs []string) error {
	switch strings.ToLower(filepath.Ext(out)) {
	case ".html", ".htm":
	default:
		return fmt.Errorf("--html %s: the page's name must end in .html or .htm (a scenario file after --html is taken as the output; write --html OUT.html FILE)", out)
	}
	st, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--html %s: %w", out, err)
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return fmt.Errorf("--html %s: that is an input scenario; give the page a name of its own", out)
		}
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("--html %s: not a regular file", out)
	}
	head := make([]byte, 512)
	fh, err := os.Open(out)
	if err != nil {
		return fmt.Errorf("--html %s: %w", out, err)
	}
	n, _ := io.ReadFull(fh, head)
	fh.Close()
	if !bytes.Contains(head[:n], []byte(`content="schedq run --html"`)) {
		return fmt.Errorf("--html %s: the file exists and is not a page schedq wrote; remove it or choose another name", out)
	}
	return nil
}
