package realsched

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Namespace is where workload pods live: the scenario language's default,
// so that a violation's scenario names them as the run did.
const Namespace = "ns"

// decoded returns obj as the API would hand it back: through JSON, so that
// its quantities compare equal (reflect.DeepEqual, as upstream's
// isPodUpdated does) with every later version the fake decodes.
func decoded[T any](obj *T) *T {
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

// Node returns a node with the given CPU (cores) and room for 110 pods.
func Node(name string, cpu int64) *v1.Node {
	return decoded(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: v1.NodeStatus{
			Capacity:    v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("64Gi"), v1.ResourcePods: resource.MustParse("110")},
			Allocatable: v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("64Gi"), v1.ResourcePods: resource.MustParse("110")},
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		}})
}

// Pod returns a pending pod of namespace "ns", UID "uid-<name>" (a real
// server assigns its own: the harness knows pods by name), asking for
// milliCPU. Its termination grace period is 0: without a kubelet, a
// bound pod deleted with a grace period would never go away.
func Pod(name string, milliCPU int64, priority int32) *v1.Pod {
	var grace int64
	return decoded(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": "w"}},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Priority: &priority, TerminationGracePeriodSeconds: &grace, Containers: []v1.Container{{Name: "c", Image: "i",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("100Mi")}}}}}})
}

// Env is what a workload drives.
type Env struct {
	ctx context.Context
	c   *cluster
	// must are the pods (by name) that must end bound; gated those that
	// must not. mu guards both: the workload adds while the throughput
	// sampler and WaitBound count.
	mu          sync.RWMutex
	must, gated map[string]bool
	pre         []runtime.Object // preloaded before the informers start
	ready       chan struct{}    // closed by Start: the preload is complete
	startCh     chan struct{}    // closed by the harness: the scheduler runs
}

func newEnv(ctx context.Context, c *cluster) *Env {
	return &Env{ctx: ctx, c: c, must: map[string]bool{}, gated: map[string]bool{}, ready: make(chan struct{}), startCh: make(chan struct{})}
}

// Start ends the preload phase and waits until the scheduler runs: a
// workload preloads, calls Start, then drives the API.
func (e *Env) Start() {
	close(e.ready)
	<-e.startCh
}

func (e *Env) preloaded() <-chan struct{} { return e.ready }

// Gate marks pods that must never be bound (scheduling gates).
func (e *Env) Gate(pods ...*v1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range pods {
		e.gated[p.Name] = true
	}
}

// Preload adds objects before the scheduler starts (no watch events).
func (e *Env) Preload(objs ...runtime.Object) { e.pre = append(e.pre, objs...) }

// Must marks pods that must end bound.
func (e *Env) Must(pods ...*v1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range pods {
		e.must[p.Name] = true
	}
}

// CreatePod creates a pod through the API, with backpressure.
func (e *Env) CreatePod(p *v1.Pod) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	_, err := e.c.cs.CoreV1().Pods(p.Namespace).Create(e.ctx, p, metav1.CreateOptions{})
	return err
}

// PreloadNodes preloads nodes node-from .. node-(to-1), each with cores
// CPUs.
func (e *Env) PreloadNodes(from, to int, cores int64) {
	for i := from; i < to; i++ {
		e.Preload(Node(fmt.Sprintf("node-%d", i), cores))
	}
}

// CreateBasicPods creates pods p-0 .. p-(n-1), each asking for 100m CPU,
// every one of which must be bound.
func (e *Env) CreateBasicPods(n int) error {
	for i := 0; i < n; i++ {
		p := Pod(fmt.Sprintf("p-%d", i), 100, 0)
		e.Must(p)
		if err := e.CreatePod(p); err != nil {
			return err
		}
	}
	return nil
}

// CreateNode creates a node through the API, with backpressure.
func (e *Env) CreateNode(n *v1.Node) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	_, err := e.c.cs.CoreV1().Nodes().Create(e.ctx, n, metav1.CreateOptions{})
	return err
}

// UpdateNode rewrites a node over its stored version (a real server
// refuses an update without one).
func (e *Env) UpdateNode(n *v1.Node) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	cur, err := e.c.cs.CoreV1().Nodes().Get(e.ctx, n.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	n = n.DeepCopy()
	n.ResourceVersion = cur.ResourceVersion
	_, err = e.c.cs.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		return e.UpdateNode(n)
	}
	return err
}

// DeleteNode deletes a node.
func (e *Env) DeleteNode(name string) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	return e.c.cs.CoreV1().Nodes().Delete(e.ctx, name, metav1.DeleteOptions{})
}

// DeletePod deletes a pod.
func (e *Env) DeletePod(name string) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	return e.c.cs.CoreV1().Pods(Namespace).Delete(e.ctx, name, metav1.DeleteOptions{})
}

// UpdatePodLabels sets a label on a pod (a pod update the queue sees).
func (e *Env) UpdatePodLabels(name, k, v string) error {
	return e.UpdatePod(name, func(p *v1.Pod) { p.Labels[k] = v })
}

// UpdatePod rewrites a pending pod with change (nothing if the pod is not
// created yet or already bound).
func (e *Env) UpdatePod(name string, change func(*v1.Pod)) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	p, err := e.c.cs.CoreV1().Pods(Namespace).Get(e.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil // not created yet
	}
	if err != nil {
		return err
	}
	if p.Spec.NodeName != "" {
		return nil
	}
	change(p)
	_, err = e.c.cs.CoreV1().Pods(Namespace).Update(e.ctx, p, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		return e.UpdatePod(name, change) // bound or written meanwhile: read it again
	}
	return err
}

// Bound is how many of the pods that must be bound are.
func (e *Env) Bound() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.c.boundCount(e.must)
}

// WaitBound waits until n pods that must be bound are, or d passes.
func (e *Env) WaitBound(n int, d time.Duration) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) && e.ctx.Err() == nil {
		if e.Bound() >= n {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return e.Bound() >= n
}

// WaitQuiet waits until no bind happened for d (the scheduler has tried
// what it can and parked the rest), or a minute passes.
func (e *Env) WaitQuiet(d time.Duration) {
	end := time.Now().Add(time.Minute)
	last, lastN := time.Now(), e.c.totalBinds()
	for time.Since(last) < d && time.Now().Before(end) && e.ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
		if n := e.c.totalBinds(); n != lastN {
			last, lastN = time.Now(), n
		}
	}
}

// FailBinds makes the API refuse binds for which f says so, with a 429
// (FailBindsWith: another answer).
func (e *Env) FailBinds(f func(pod *v1.Pod, attempt int) bool) { e.FailBindsWith(TooManyRequests, f) }

// FailBindsWith makes the API refuse binds for which f says so, with the
// given answer.
func (e *Env) FailBindsWith(fault BindFault, f func(pod *v1.Pod, attempt int) bool) {
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	e.c.failBind, e.c.fault = f, fault
}

// Ctx is the run's context.
func (e *Env) Ctx() context.Context { return e.ctx }

// Workload is a scheduler_perf-style workload.
type Workload struct {
	Name  string
	Nodes int
	Pods  int
	// Run drives the cluster while the scheduler runs; it returns when
	// everything it created is created (the harness then waits for the
	// pods that must be bound).
	Run func(e *Env) error
}
