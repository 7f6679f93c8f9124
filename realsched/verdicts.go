package realsched

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"

	"github.com/schedq/schedq/spec"
)

// Verdicts carries the PreEnqueue verdicts the queue got within one call
// of the trace over to the model's step for that call.
//
// R17 takes a PreEnqueue plugin to be a function of the pod. One default
// plugin is not: DefaultPreemption (asynchronous preemption, on by
// default from v1.33) refuses a pod while the pod's preemption goroutine
// runs, and the goroutine ends on its own time. The queue asks the plugin
// inside the call, the model a few microseconds later in the recorder's
// step; if the goroutine ended in between, the two got different answers
// to the same question, and the trace check reported a difference that
// neither the queue nor the contract made. So the queue's plugins are
// wrapped (memoPlugin: upstream's in the queue's own map, schedq's through
// the profiles the adapter reads), every answer they give is kept for the
// current call, and the model's plugins (replay) answer with the queue's
// verdict where the queue asked the same plugin about the same pod in the
// same call. Where the queue did not ask, the model asks the plugin
// itself: that is the contract's question, not the queue's.
//
// Every shared verdict is also asked live at the model's step: a
// difference is counted as a flip, the evidence that the verdict moved
// between the two questions.
type Verdicts struct {
	mu sync.Mutex
	// calls are the verdicts of the calls under way, by goroutine (the
	// queues ask their plugins on the caller's goroutine); cur are the
	// ones the model's step replays.
	calls map[int64]map[verdictKey]bool
	cur   map[verdictKey]bool
	// by plugin: verdicts the model took from the queue, of those the
	// ones the plugin answered differently at the model's step, and the
	// questions only the model asked.
	shared, flipped, alone map[string]int
	flips                  []string // the first flips: plugin, pod, queue's verdict
	// live makes the model answer with the plugin's verdict at its own
	// step, as before this memo (flips still counted): the experiment
	// that shows the flips are what the trace check reported.
	live bool
	// quiet stops the counting: porcupine's search replays a step many
	// times, long after the run.
	quiet bool
}

type verdictKey struct {
	plugin string
	uid    types.UID
}

// NewVerdicts is an empty memo.
func NewVerdicts() *Verdicts {
	return &Verdicts{calls: map[int64]map[verdictKey]bool{}, shared: map[string]int{}, flipped: map[string]int{}, alone: map[string]int{}}
}

// begin starts a call of the trace on this goroutine.
func (v *Verdicts) begin() {
	if v == nil {
		return
	}
	g := goid()
	v.mu.Lock()
	v.calls[g] = map[verdictKey]bool{}
	v.mu.Unlock()
}

// end ends this goroutine's call: its verdicts are what the model's next
// step replays, and are returned (the unserialised history keeps them
// with the call).
func (v *Verdicts) end() map[verdictKey]bool {
	if v == nil {
		return nil
	}
	g := goid()
	v.mu.Lock()
	defer v.mu.Unlock()
	m := v.calls[g]
	delete(v.calls, g)
	v.cur = m
	return m
}

// use makes m the verdicts the model's next step replays.
func (v *Verdicts) use(m map[verdictKey]bool) {
	if v == nil {
		return
	}
	v.mu.Lock()
	v.cur = m
	v.mu.Unlock()
}

// put keeps a verdict for the call under way on this goroutine; a
// plugin asked outside a recorded call (after a violation) is not kept.
func (v *Verdicts) put(plugin string, uid types.UID, ok bool) {
	g := goid()
	v.mu.Lock()
	if m := v.calls[g]; m != nil {
		m[verdictKey{plugin, uid}] = ok
	}
	v.mu.Unlock()
}

// replay wraps the model's PreEnqueue plugins: each answers with the
// queue's verdict of the current call when there is one.
func (v *Verdicts) replay(ps spec.PreEnqueuePlugins) spec.PreEnqueuePlugins {
	out := make(spec.PreEnqueuePlugins, len(ps))
	for name, f := range ps {
		out[name] = func(p *spec.Pod) bool {
			live := f(p)
			v.mu.Lock()
			defer v.mu.Unlock()
			got, ok := v.cur[verdictKey{name, types.UID(p.UID)}]
			if v.quiet {
				if ok && !v.live {
					return got
				}
				return live
			}
			if !ok {
				v.alone[name]++
				return live
			}
			v.shared[name]++
			if got != live {
				v.flipped[name]++
				if len(v.flips) < 10 {
					v.flips = append(v.flips, fmt.Sprintf("%s on %s: queue %v, live at the model's step %v", name, p.Key(), admits(got), admits(live)))
				}
			}
			if v.live {
				return live
			}
			return got
		}
	}
	return out
}

func admits(ok bool) string {
	if ok {
		return "admit"
	}
	return "refuse"
}

// String is the counts by plugin, and the first flips.
func (v *Verdicts) String() string {
	if v == nil {
		return "no verdict memo"
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	names := map[string]bool{}
	for _, m := range []map[string]int{v.shared, v.alone} {
		for n := range m {
			names[n] = true
		}
	}
	var l []string
	for n := range names {
		l = append(l, n)
	}
	sort.Strings(l)
	var parts []string
	for _, n := range l {
		parts = append(parts, fmt.Sprintf("%s: %d shared (%d flipped), %d asked by the model alone", n, v.shared[n], v.flipped[n], v.alone[n]))
	}
	s := "PreEnqueue verdicts: " + strings.Join(parts, "; ")
	if len(parts) == 0 {
		s += "none asked"
	}
	if len(v.flips) > 0 {
		s += "; flips: " + strings.Join(v.flips, "; ")
	}
	return s
}

// Flipped is the number of shared verdicts the plugin answered otherwise
// at the model's step, by plugin.
func (v *Verdicts) Flipped() map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := map[string]int{}
	for n, c := range v.flipped {
		out[n] = c
	}
	return out
}

// memoPlugin is a queue's PreEnqueue plugin that keeps its verdicts.
type memoPlugin struct {
	preEnqueuePlugin
	v *Verdicts
}

func (m memoPlugin) PreEnqueue(ctx context.Context, pod *v1.Pod) *status {
	s := m.preEnqueuePlugin.PreEnqueue(ctx, pod)
	if pod != nil {
		m.v.put(m.Name(), pod.UID, s.IsSuccess())
	}
	return s
}

// memoProfile is a profile whose PreEnqueue plugins keep their verdicts:
// what schedq's adapter reads its plugins from (Config).
type memoProfile struct {
	upstreamProfile
	plugins []preEnqueuePlugin
}

func (p memoProfile) PreEnqueuePlugins() []preEnqueuePlugin { return p.plugins }

func (v *Verdicts) profiles(in map[string]upstreamProfile) map[string]upstreamProfile {
	out := make(map[string]upstreamProfile, len(in))
	for n, p := range in {
		var pls []preEnqueuePlugin
		for _, pl := range p.PreEnqueuePlugins() {
			pls = append(pls, memoPlugin{pl, v})
		}
		out[n] = memoProfile{p, pls}
	}
	return out
}

// wrapUpstream replaces the PreEnqueue plugins upstream's queue holds (its
// unexported preEnqueuePluginMap, filled by scheduler.New from the same
// profiles: per profile a slice in v1.33, a map by name in v1.37) with
// memoPlugins. It runs before the informers start, when no other
// goroutine reads the map. The field is read by reflection, so a release
// that renames or reshapes it fails here, loudly, not silently unwrapped.
func (v *Verdicts) wrapUpstream(pq *queue.PriorityQueue) error {
	f := reflect.ValueOf(pq).Elem().FieldByName("preEnqueuePluginMap")
	if !f.IsValid() || f.Kind() != reflect.Map {
		return fmt.Errorf("upstream's queue has no preEnqueuePluginMap map: cannot share its PreEnqueue verdicts")
	}
	m := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	wrap := func(pl reflect.Value) (reflect.Value, error) {
		p, ok := pl.Interface().(preEnqueuePlugin)
		if !ok {
			return reflect.Value{}, fmt.Errorf("upstream's preEnqueuePluginMap holds %s", pl.Type())
		}
		return reflect.ValueOf(preEnqueuePlugin(memoPlugin{p, v})), nil
	}
	for it := m.MapRange(); it.Next(); {
		inner := it.Value()
		switch inner.Kind() {
		case reflect.Map:
			for jt := inner.MapRange(); jt.Next(); {
				w, err := wrap(jt.Value())
				if err != nil {
					return err
				}
				inner.SetMapIndex(jt.Key(), w)
			}
		case reflect.Slice:
			for i := 0; i < inner.Len(); i++ {
				w, err := wrap(inner.Index(i))
				if err != nil {
					return err
				}
				inner.Index(i).Set(w)
			}
		default:
			return fmt.Errorf("upstream's preEnqueuePluginMap is a %s", f.Type())
		}
	}
	return nil
}
