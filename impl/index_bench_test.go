package impl

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/schedq/schedq/internal/cputime"
	"github.com/schedq/schedq/spec"
)

// BenchmarkIndex compares podIndex with Go's built-in map (a Swiss table
// since Go 1.24) on what the queue asks of its two indexes per pod in
// AddPop: Add looks the pod up by key and by UID (both miss) and inserts
// it in both; Done, in the random order of priorities, removes it from
// both. The map side is the natural alternative: one map from (namespace,
// name) and one from UID to the entry, whose removal hashes the key again.
// Per pod it reports CPU and wall time, and index-B/pod, the live heap of
// the two indexes holding N pods (the pods and entries excluded). The
// figures are in podIndex's doc comment:
//
//	go test -run '^$' -bench Index ./impl/
func BenchmarkIndex(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		ents := make([]*entry, n)
		for i := range ents {
			ents[i] = &entry{info: podInfo{Pod: &spec.Pod{
				Namespace: "bench", Name: fmt.Sprintf("pod-%d", i), UID: spec.UID(fmt.Sprintf("uid-%d", i)),
			}}}
		}
		order := rand.New(rand.NewPCG(uint64(n), 7)).Perm(n)
		for _, impl := range []string{"podIndex", "map"} {
			b.Run(fmt.Sprintf("N=%d/%s", n, impl), func(b *testing.B) {
				var x indexPair
				if impl == "podIndex" {
					x = &podIndexPair{keys: podIndex{slots: true}, uids: podIndex{byUID: true, slots: true}}
				} else {
					x = &mapPair{keys: map[podKey]*entry{}, uids: map[spec.UID]*entry{}}
				}
				// What the two indexes hold at N pods, their growth
				// included; then the timed rounds run on grown tables, as
				// in a queue's steady state.
				before := liveBytes()
				round := func() {
					for _, e := range ents {
						x.add(e)
					}
					for _, i := range order {
						x.remove(ents[i])
					}
				}
				for _, e := range ents {
					x.add(e)
				}
				held := liveBytes() - before
				for _, i := range order {
					x.remove(ents[i])
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu := cputime.Start()
				for range b.N {
					round()
				}
				cpu.Report(b)
				b.StopTimer()
				pods := float64(b.N) * float64(n)
				b.ReportMetric(float64(cpu.Total().Nanoseconds())/pods, "cpu-ns/pod")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/pods, "ns/pod")
				b.ReportMetric(float64(held)/float64(n), "index-B/pod")
				runtime.KeepAlive(x)
			})
		}
	}
}

func liveBytes() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// indexPair is the queue's two indexes as BenchmarkIndex uses them.
type indexPair interface {
	add(e *entry)
	remove(e *entry)
}

type podIndexPair struct{ keys, uids podIndex }

func (x *podIndexPair) add(e *entry) {
	p := e.info.Pod
	h := hashesOf(p)
	if x.keys.findKey(h.key, p.Namespace, p.Name) != nil || x.uids.findUID(h.uid, p.UID) != nil {
		panic("held")
	}
	x.keys.insert(h.key, e)
	x.uids.insert(h.uid, e)
}

func (x *podIndexPair) remove(e *entry) {
	x.keys.remove(e)
	x.uids.remove(e)
}

type podKey struct{ namespace, name string }

type mapPair struct {
	keys map[podKey]*entry
	uids map[spec.UID]*entry
}

func (x *mapPair) add(e *entry) {
	p := e.info.Pod
	k := podKey{p.Namespace, p.Name}
	if x.keys[k] != nil || x.uids[p.UID] != nil {
		panic("held")
	}
	x.keys[k] = e
	x.uids[p.UID] = e
}

func (x *mapPair) remove(e *entry) {
	p := e.info.Pod
	delete(x.keys, podKey{p.Namespace, p.Name})
	delete(x.uids, p.UID)
}
