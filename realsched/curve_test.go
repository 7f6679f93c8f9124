package realsched

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	pprofile "github.com/google/pprof/profile"
)

// The measures of a run beyond scheduler_perf's: the bound-over-time
// curve, the order of first attempts and retries, and where the
// scheduler's CPU went (TestPreemptionCurve prints them; TestPlotCurves
// draws the curves).

// curveReport says when the pods that must be bound were: at a quarter,
// half, three quarters and all of them.
func curveReport(r *Result) string {
	at := func(q float64) string {
		n := int(q * float64(r.Pods))
		if n < 1 {
			n = 1
		}
		if n > len(r.BoundAt) {
			return "never"
		}
		return r.BoundAt[n-1].Round(100 * time.Millisecond).String()
	}
	sched := "?"
	if r.SchedulerCPU >= 0 {
		sched = fmt.Sprintf("%.1f", 1000*r.SchedulerCPU/float64(max(r.Pods, 1)))
	}
	return fmt.Sprintf("%s on %s (%s): bound 25%% %s, 50%% %s, 75%% %s, 100%% %s; CPU %.1f s (%.1f ms/pod), scheduler %s ms/pod, queue %.1f%% of the scheduler's; throughput avg %.1f p50 %.1f p90 %.1f p99 %.1f pods/s; attempt p50 %v p90 %v p99 %v",
		r.Workload, r.Queue, r.Backend, at(0.25), at(0.5), at(0.75), at(1), r.CPUSeconds, 1000*r.CPUSeconds/float64(max(r.Pods, 1)), sched,
		100*r.QueueShare, r.Throughput, r.ThroughputP50, r.ThroughputP90, r.ThroughputP99, r.P50, r.P90, r.P99)
}

// order is what the attempt order shows: how many attempts were first
// attempts and retries, how many retries ran before the last first
// attempt, and when the last first attempt and the first retry ran.
type order struct {
	firsts, retries, retriesBeforeLastFirst int
	lastFirst, firstRetry                   time.Duration
}

func orderOf(pops []Attempt) order {
	var o order
	last := -1
	for i, a := range pops {
		if a.Number <= 1 {
			o.firsts++
			last, o.lastFirst = i, a.At
		}
	}
	for i, a := range pops {
		if a.Number > 1 {
			if o.retries == 0 {
				o.firstRetry = a.At
			}
			o.retries++
			if i < last {
				o.retriesBeforeLastFirst++
			}
		}
	}
	return o
}

func attemptOrder(pops []Attempt) string {
	o := orderOf(pops)
	return fmt.Sprintf("attempts: %d first, %d retries; %d retries ran before the last first attempt (at %v); first retry at %v",
		o.firsts, o.retries, o.retriesBeforeLastFirst, o.lastFirst.Round(time.Millisecond), o.firstRetry.Round(time.Millisecond))
}

// TestAttemptOrder: the order measure tells "every first attempt before
// any retry" from interleaved attempts, and its broken variant (counting
// every retry as before the last first attempt) is caught.
func TestAttemptOrder(t *testing.T) {
	firstsThenRetries := []Attempt{{0, "a", 1}, {1, "b", 1}, {2, "a", 2}, {3, "b", 2}}
	interleaved := []Attempt{{0, "a", 1}, {1, "a", 2}, {2, "b", 1}, {3, "b", 2}}
	if o := orderOf(firstsThenRetries); o.firsts != 2 || o.retries != 2 || o.retriesBeforeLastFirst != 0 {
		t.Errorf("firsts then retries: %+v", o)
	}
	if o := orderOf(interleaved); o.retriesBeforeLastFirst != 1 {
		t.Errorf("interleaved: %+v, want 1 retry before the last first attempt", o)
	}
	broken := func(pops []Attempt) int { return orderOf(pops).retries } // the mutant: every retry
	if broken(firstsThenRetries) == orderOf(firstsThenRetries).retriesBeforeLastFirst {
		t.Error("the broken measure agrees with the right one on firsts-then-retries")
	}
}

// topFunctions lists the functions with the most CPU samples of the
// scheduler's goroutines (flat, and cumulative for the queue's), n each.
func topFunctions(data []byte, n int) []string {
	if len(data) == 0 {
		return nil
	}
	p, err := pprofile.Parse(bytes.NewReader(data))
	if err != nil {
		return []string{"profile: " + err.Error()}
	}
	flat, cum := map[string]int64{}, map[string]int64{}
	var all int64
	for _, s := range p.Sample {
		if len(s.Label["realsched"]) == 0 {
			continue
		}
		v := s.Value[len(s.Value)-1]
		all += v
		seen := map[string]bool{}
		for i, l := range s.Location {
			for j, ln := range l.Line {
				if ln.Function == nil {
					continue
				}
				name := ln.Function.Name
				if i == 0 && j == 0 {
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	if all == 0 {
		return nil
	}
	out := []string{fmt.Sprintf("scheduler samples: %d", all)}
	for _, m := range []struct {
		kind string
		m    map[string]int64
	}{{"flat", flat}, {"cum", cum}} {
		names := make([]string, 0, len(m.m))
		for k := range m.m {
			names = append(names, k)
		}
		sort.Slice(names, func(i, j int) bool { return m.m[names[i]] > m.m[names[j]] })
		for i, k := range names {
			if i == n {
				break
			}
			out = append(out, fmt.Sprintf("%s %5.1f%% %s", m.kind, 100*float64(m.m[k])/float64(all), k))
		}
	}
	return out
}

// writeCurve writes a run's bind times as CSV: seconds, pods bound.
func writeCurve(name string, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s on %s (%s)\n", Release, r.Workload, r.Queue, r.Backend)
	for i, at := range r.BoundAt {
		fmt.Fprintf(&b, "%.3f,%d\n", at.Seconds(), i+1)
	}
	return os.WriteFile(name, []byte(b.String()), 0o644)
}

var plotFlag = flag.String("realsched.plot", "", "TestPlotCurves: draw the CSVs of this directory (TestPreemptionCurve's) as an SVG")
var plotOut = flag.String("realsched.plot.out", "../docs/realsched-preemption.svg", "TestPlotCurves: the SVG written")

// TestPlotCurves draws the bound-over-time curves of -realsched.plot's
// CSVs (round 1 of each release and queue) as one SVG chart.
func TestPlotCurves(t *testing.T) {
	if *plotFlag == "" {
		t.Skip("-realsched.plot not given")
	}
	files, err := filepath.Glob(filepath.Join(*plotFlag, "preemption-*-1.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no curves in %s (%v)", *plotFlag, err)
	}
	sort.Strings(files)
	var series []curve
	for _, f := range files {
		c, err := readCurve(f)
		if err != nil {
			t.Fatal(err)
		}
		series = append(series, c)
	}
	if err := os.WriteFile(*plotOut, []byte(svgChart("Preemption on a real kube-apiserver: preemptors bound over time", series)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d curves)", *plotOut, len(series))
}

type curve struct {
	label string
	t     []float64
	n     []int
}

func readCurve(name string) (curve, error) {
	f, err := os.Open(name)
	if err != nil {
		return curve{}, err
	}
	defer f.Close()
	base := strings.TrimSuffix(filepath.Base(name), "-1.csv")
	c := curve{label: strings.Replace(strings.TrimPrefix(base, "preemption-"), "-", " ", 1)}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		a, b, ok := strings.Cut(line, ",")
		if !ok {
			return c, fmt.Errorf("%s: bad line %q", name, line)
		}
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil {
			return c, fmt.Errorf("%s: bad line %q", name, line)
		}
		c.t, c.n = append(c.t, x), append(c.n, y)
	}
	return c, sc.Err()
}

// svgChart draws the curves as step lines on shared axes, at most 300
// points each (the file stays small).
func svgChart(title string, cs []curve) string {
	const w, h, left, bottom, top, right = 720, 400, 60, 40, 30, 170
	var maxT float64
	maxN := 0
	for _, c := range cs {
		if len(c.t) > 0 {
			maxT = max(maxT, c.t[len(c.t)-1])
			maxN = max(maxN, c.n[len(c.n)-1])
		}
	}
	maxT = niceCeil(maxT)
	yTop := niceCeil(float64(maxN))
	x := func(v float64) float64 { return left + v/maxT*float64(w-left-right) }
	y := func(v float64) float64 { return float64(h-bottom) - v/yTop*float64(h-bottom-top) }
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/><text x="%d" y="18" font-size="14">%s</text>`+"\n", w, h, left, title)
	for i := 0; i <= 5; i++ {
		tv, nv := maxT*float64(i)/5, yTop*float64(i)/5
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%d" x2="%.0f" y2="%d" stroke="#ddd"/><text x="%.0f" y="%d" text-anchor="middle">%g</text>`+"\n", x(tv), top, x(tv), h-bottom, x(tv), h-bottom+16, tv)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="#ddd"/><text x="%d" y="%.0f" text-anchor="end">%g</text>`+"\n", left, y(nv), w-right, y(nv), left-6, y(nv)+4, nv)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">seconds since the preemptors were created</text>`+"\n", (left+w-right)/2, h-6)
	fmt.Fprintf(&b, `<text transform="translate(14,%d) rotate(-90)" text-anchor="middle">preemptors bound</text>`+"\n", (top+h-bottom)/2)
	for i, c := range cs {
		col := colors[i%len(colors)]
		step := max(1, len(c.t)/300)
		var pts strings.Builder
		fmt.Fprintf(&pts, "%.1f,%.1f ", x(0), y(0))
		for j := 0; j < len(c.t); j += step {
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(c.t[j]), y(float64(c.n[j])))
		}
		if n := len(c.t); n > 0 {
			fmt.Fprintf(&pts, "%.1f,%.1f", x(c.t[n-1]), y(float64(c.n[n-1])))
		}
		dash := ""
		if strings.Contains(c.label, "schedq") {
			dash = ` stroke-dasharray="6,3"`
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", col, dash, pts.String())
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text x="%d" y="%d">%s</text>`+"\n",
			w-right+10, top+10+18*i, w-right+34, top+10+18*i, col, dash, w-right+40, top+14+18*i, c.label)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := 1.0
	for p*10 <= v {
		p *= 10
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
