package upstream

import (
	v1 "k8s.io/api/core/v1"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// podLister is the pod informer's cache as the adapter fills it. Upstream's
// nominator lists a pod before it nominates it, and drops the nomination
// of a pod its lister does not have or that is bound (nominator.go,
// AddNominatedPod, in every release); NewPriorityQueue's default lister
// reads an informer nobody starts, so without this every nomination was
// dropped and the nominator scenarios compared nothing. The adapter plays
// the API server: a pod exists from the first call that hands it over
// (Add, Update, AddUnschedulableIfNotPresent, or a nomination of a pod it
// never saw) until Delete.
type podLister struct {
	store   cache.Indexer
	lister  listersv1.PodLister
	deleted map[string]bool
}

func newPodLister() *podLister {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	return &podLister{store: store, lister: listersv1.NewPodLister(store), deleted: map[string]bool{}}
}

func key(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

func (l *podLister) set(p *v1.Pod) {
	delete(l.deleted, key(p))
	_ = l.store.Update(p) // Update adds a pod the store does not have
}

// setIfNew lists p if the adapter has not seen it, and not if it was
// deleted: a nomination does not bring a deleted pod back.
func (l *podLister) setIfNew(p *v1.Pod) {
	if _, ok, _ := l.store.GetByKey(key(p)); ok || l.deleted[key(p)] {
		return
	}
	_ = l.store.Add(p)
}

func (l *podLister) remove(p *v1.Pod) {
	l.deleted[key(p)] = true
	_ = l.store.Delete(p)
}
