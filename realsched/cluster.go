package realsched

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
)

// A run's API is one of two backends behind one cluster:
//
//   - the fake clientset (make test, and every run without a server): fast
//     to build and to run, the backend of the bounded suite make test runs;
//   - a real kube-apiserver with etcd (Options.Server, realapi builds):
//     what a user runs, for the measurements and the fault runs.
//
// Both account binds the same way (bindAttempt, bindDone): on the fake
// through a reactor on pods/binding, on the real server through the
// scheduler's HTTP transport, which also injects the faults (FaultPlan).

// BindFault is how the API refuses an injected bind failure.
type BindFault int

const (
	// TooManyRequests (429): the binder hands the pod back to the queue
	// (from v1.37 the default binder retries a 500 in place, so a 500
	// would never reach the queue).
	TooManyRequests BindFault = iota
	// Conflict (409), as a bind racing another writer gets.
	Conflict
	// InternalError (500).
	InternalError
)

func (f BindFault) String() string {
	return [...]string{"429 TooManyRequests", "409 Conflict", "500 InternalError"}[f]
}

func (f BindFault) status(name string) (int, error) {
	gr := podsGVR.GroupResource()
	switch f {
	case Conflict:
		return http.StatusConflict, apierrors.NewConflict(gr, name, fmt.Errorf("injected bind conflict"))
	case InternalError:
		return http.StatusInternalServerError, apierrors.NewInternalError(fmt.Errorf("injected bind failure"))
	default:
		return http.StatusTooManyRequests, apierrors.NewTooManyRequests("injected bind failure", 1)
	}
}

// FaultPlan are the faults a run injects on a real server (the fake
// supports the bind failures only, through Env.FailBinds).
type FaultPlan struct {
	// WatchRestart closes each of the scheduler's watches after a random
	// time up to this (0: never): its informers must list or resume and
	// lose no event.
	WatchRestart time.Duration
	// VictimGone deletes a preemption victim through another client just
	// before the scheduler's own delete reaches the server, and waits
	// until the scheduler's informer has seen it: the scheduler's delete
	// then finds the victim gone (kubernetes/kubernetes#141694's path).
	VictimGone bool
}

// cluster is the run's API and its accounting of binds.
type cluster struct {
	// cs is the workload's client; sched the scheduler's (on the real
	// server, through the transport that accounts and injects).
	cs, sched kubernetes.Interface
	fake      *fakeAPI // nil on a real server
	faults    FaultPlan
	done      <-chan struct{}
	t0        atomic.Pointer[time.Time] // the measured phase's start

	mu       sync.Mutex
	binds    map[string]int // successful binds per pod name
	boundAt  []time.Duration
	double   int // binds of a pod already bound (must stay 0)
	failBind func(pod *v1.Pod, attempt int) bool
	fault    BindFault
	attempts map[string]int
	injected int
	onBind   func()
	goneVics int
	// calls counts the scheduler's requests to a real server in the
	// measured phase by verb and resource (callKind).
	calls map[string]int
	// podDeleted is set by the harness: it reports whether the
	// scheduler's informer has seen a pod's deletion.
	podDeleted func(name string) bool
}

func newAccounting() *cluster {
	return &cluster{binds: map[string]int{}, attempts: map[string]int{}, calls: map[string]int{}}
}

// bindAttempt counts a bind of pod name about to reach the API; a non-nil
// error is the injected failure to answer instead.
func (c *cluster) bindAttempt(name string, alreadyBound bool) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempts[name]++
	if alreadyBound {
		c.double++
		return http.StatusConflict, apierrors.NewConflict(podsGVR.GroupResource(), name, fmt.Errorf("pod is already assigned to a node"))
	}
	if c.failBind != nil && c.failBind(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name}}, c.attempts[name]) {
		c.injected++
		return c.fault.status(name)
	}
	return 0, nil
}

// bindDone records the API's answer to a bind that reached it.
func (c *cluster) bindDone(name string, ok bool) {
	c.mu.Lock()
	if !ok {
		c.attempts[name]--
		c.mu.Unlock()
		return
	}
	c.binds[name]++
	if t0 := c.t0.Load(); t0 != nil {
		c.boundAt = append(c.boundAt, time.Since(*t0))
	}
	onBind := c.onBind
	c.mu.Unlock()
	if onBind != nil {
		onBind()
	}
}

func (c *cluster) boundCount(names map[string]bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for name := range names {
		if c.binds[name] > 0 {
			n++
		}
	}
	return n
}

func (c *cluster) totalBinds() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.injected + c.double
	for _, b := range c.binds {
		n += b
	}
	return n
}

// ended reports whether the run is over.
func (c *cluster) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// wait holds a workload's write back while the fake's watch is behind
// (on a real server nothing to wait for); it returns ctx's error once the
// run is over, and the writer must not write.
func (c *cluster) wait(ctx context.Context) error {
	if c.fake != nil {
		return c.fake.wait(ctx)
	}
	return ctx.Err()
}

// preload puts objs in place before the scheduler's informers start: into
// the fake's tracker, or created through the real API by a few writers.
func (c *cluster) preload(ctx context.Context, objs []runtime.Object) error {
	if c.fake != nil {
		for _, obj := range objs {
			if err := c.fake.cs.Tracker().Add(obj); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := c.cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// Nodes first: a bound pod names its node.
	var nodes, pods []runtime.Object
	for _, o := range objs {
		if _, ok := o.(*v1.Node); ok {
			nodes = append(nodes, o)
		} else {
			pods = append(pods, o)
		}
	}
	for _, batch := range [][]runtime.Object{nodes, pods} {
		if err := parallel(8, batch, func(o runtime.Object) error { return c.create(ctx, o) }); err != nil {
			return err
		}
	}
	return nil
}

func (c *cluster) create(ctx context.Context, o runtime.Object) error {
	var err error
	switch o := o.(type) {
	case *v1.Node:
		_, err = c.cs.CoreV1().Nodes().Create(ctx, o, metav1.CreateOptions{})
	case *v1.Pod:
		_, err = c.cs.CoreV1().Pods(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
	default:
		err = fmt.Errorf("preload: %T is not a node or a pod", o)
	}
	return err
}

func parallel(n int, objs []runtime.Object, f func(runtime.Object) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := atomic.Int64{}
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(objs) {
					return
				}
				if err := f(objs[i]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// newFakeCluster is the fake API server: the fake clientset with
// resource versions on every write, binding that writes spec.nodeName,
// and a count of the watch events written and seen (the fake watch
// panics past 100 unread events, so writers wait for the informers).
func newFakeCluster() *cluster {
	c := newAccounting()
	f := &fakeAPI{cs: fake.NewSimpleClientset(), c: c}
	f.tracker = rvTracker{ObjectTracker: f.cs.Tracker(), f: f}
	f.cs.PrependReactor("*", "*", clienttesting.ObjectReaction(f.tracker))
	f.cs.PrependReactor("create", "pods", f.bind)
	c.fake, c.cs, c.sched = f, f.cs, f.cs
	return c
}

// newRealCluster is a real API server: the workload's client as given,
// the scheduler's through the accounting and fault transport.
func newRealCluster(cfg *rest.Config, faults FaultPlan) (*cluster, error) {
	c := newAccounting()
	c.faults = faults
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	sc := rest.CopyConfig(cfg)
	sc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &schedTransport{next: rt, c: c, side: cs} })
	sched, err := kubernetes.NewForConfig(sc)
	if err != nil {
		return nil, err
	}
	c.cs, c.sched = cs, sched
	return c, nil
}

// schedTransport is the scheduler's side of a real server: it accounts
// binds (the server's answer), injects bind failures and the FaultPlan.
type schedTransport struct {
	next http.RoundTripper
	c    *cluster
	side kubernetes.Interface // the workload's client, for VictimGone
}

// podPath splits /api/v1/namespaces/NS/pods/NAME[/SUB].
func podPath(p string) (name, sub string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(parts) < 6 || parts[0] != "api" || parts[2] != "namespaces" || parts[4] != "pods" {
		return "", "", false
	}
	if len(parts) > 6 {
		sub = parts[6]
	}
	return parts[5], sub, true
}

// callKind names a request by verb and resource, without namespace or
// object name: "POST pods/binding", "WATCH nodes", "POST events".
func callKind(req *http.Request) string {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case len(parts) > 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) > 3 && parts[0] == "apis":
		parts = parts[3:]
	}
	if len(parts) > 2 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	res := parts[0]
	if len(parts) > 2 {
		res += "/" + parts[2]
	}
	verb := req.Method
	if req.URL.Query().Get("watch") == "true" {
		verb = "WATCH"
	}
	return verb + " " + res
}

func (t *schedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.c.t0.Load() != nil {
		k := callKind(req)
		t.c.mu.Lock()
		t.c.calls[k]++
		t.c.mu.Unlock()
	}
	name, sub, isPod := podPath(req.URL.Path)
	switch {
	case isPod && req.Method == http.MethodPost && sub == "binding":
		if code, err := t.c.bindAttempt(name, false); err != nil {
			return statusResponse(req, code, err), nil
		}
		resp, err := t.next.RoundTrip(req)
		t.c.bindDone(name, err == nil && resp.StatusCode < 300)
		if err == nil && resp.StatusCode == http.StatusConflict {
			t.c.mu.Lock()
			t.c.double++ // the server refused a bind of a bound pod
			t.c.mu.Unlock()
		}
		return resp, err
	case isPod && req.Method == http.MethodDelete && sub == "" && t.c.faults.VictimGone:
		t.deleteFirst(req.Context(), name)
	case req.Method == http.MethodGet && req.URL.Query().Get("watch") == "true" && t.c.faults.WatchRestart > 0:
		resp, err := t.next.RoundTrip(req)
		if err == nil {
			d := time.Duration(rand.Int63n(int64(t.c.faults.WatchRestart))) + 1
			body := resp.Body
			timer := time.AfterFunc(d, func() { body.Close() })
			resp.Body = &closeStops{ReadCloser: body, timer: timer}
		}
		return resp, err
	}
	return t.next.RoundTrip(req)
}

// deleteFirst deletes the victim through the workload's client and waits
// (at most 5 s) until the scheduler's informer has seen it go.
func (t *schedTransport) deleteFirst(ctx context.Context, name string) {
	if err := t.side.CoreV1().Pods(Namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return
	}
	t.c.mu.Lock()
	t.c.goneVics++
	seen := t.c.podDeleted
	t.c.mu.Unlock()
	end := time.Now().Add(5 * time.Second)
	for seen != nil && !seen(name) && time.Now().Before(end) && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}

type closeStops struct {
	io.ReadCloser
	timer *time.Timer
}

func (c *closeStops) Close() error { c.timer.Stop(); return c.ReadCloser.Close() }

// statusResponse is the API's answer err (a *StatusError) as HTTP.
func statusResponse(req *http.Request, code int, err error) *http.Response {
	var body []byte
	if se, ok := err.(apierrors.APIStatus); ok {
		st := se.Status()
		st.APIVersion, st.Kind = "v1", "Status"
		body, _ = json.Marshal(&st)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	// No Retry-After: with one, client-go retries a 429 itself and the
	// failure never reaches the scheduler.
	return &http.Response{StatusCode: code, Status: http.StatusText(code), Header: h, Body: io.NopCloser(bytes.NewReader(body)),
		Request: req, ProtoMajor: 1, ProtoMinor: 1, ContentLength: int64(len(body))}
}

// fakeAPI is the fake clientset with its tracker.
type fakeAPI struct {
	cs      *fake.Clientset
	tracker clienttesting.ObjectTracker
	c       *cluster
	rv      atomic.Int64
	updates sync.Mutex // one Update's check and write at a time
	written atomic.Int64
	seen    atomic.Int64
}

// rvTracker sets a fresh resource version on every write: the scheduler
// ignores a pod update whose resource version did not change.
type rvTracker struct {
	clienttesting.ObjectTracker
	f *fakeAPI
}

func (t rvTracker) stamp(obj runtime.Object) {
	t.f.room(80)
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(fmt.Sprint(t.f.rv.Add(1)))
	}
}

func (t rvTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	t.stamp(obj)
	return t.ObjectTracker.Create(gvr, obj, ns, opts...)
}

// Update refuses a write whose resource version is not the stored one,
// as the API server does (a Conflict): the workload and the bind reactor
// both read a pod and write it back, and without the check the later
// write silently undid the earlier (a relabel written over a bind took
// the pod off its node, and the scheduler's cache, which cannot see a
// pod change nodes, exits the process).
func (t rvTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	t.f.updates.Lock()
	defer t.f.updates.Unlock()
	if m, err := meta.Accessor(obj); err == nil && m.GetResourceVersion() != "" {
		if cur, err := t.ObjectTracker.Get(gvr, ns, m.GetName()); err == nil {
			if cm, err := meta.Accessor(cur); err == nil && cm.GetResourceVersion() != m.GetResourceVersion() {
				return apierrors.NewConflict(gvr.GroupResource(), m.GetName(), fmt.Errorf("resource version %s, stored %s", m.GetResourceVersion(), cm.GetResourceVersion()))
			}
		}
	}
	t.stamp(obj)
	return t.ObjectTracker.Update(gvr, obj, ns, opts...)
}

func (t rvTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	t.stamp(obj)
	return t.ObjectTracker.Patch(gvr, obj, ns, opts...)
}

func (t rvTracker) Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error {
	t.f.room(80)
	return t.ObjectTracker.Delete(gvr, ns, name, opts...)
}

var podsGVR = v1.SchemeGroupVersion.WithResource("pods")

// bind is the pods/binding subresource: spec.nodeName written through the
// tracker, a conflict for a pod already bound (as the API server), and
// the injected failures.
func (f *fakeAPI) bind(action clienttesting.Action) (bool, runtime.Object, error) {
	if action.GetSubresource() != "binding" {
		return false, nil, nil
	}
	b := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
	for {
		handled, out, err := f.bindOnce(b)
		if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "resource version") {
			return handled, out, err
		}
		// The workload wrote the pod between the read and the write:
		// read it again.
	}
}

func (f *fakeAPI) bindOnce(b *v1.Binding) (bool, runtime.Object, error) {
	obj, err := f.tracker.Get(podsGVR, b.Namespace, b.Name)
	if err != nil {
		return true, nil, err
	}
	pod := obj.(*v1.Pod).DeepCopy()
	if _, err := f.c.bindAttempt(pod.Name, pod.Spec.NodeName != ""); err != nil {
		return true, nil, err
	}
	pod.Spec.NodeName = b.Target.Name
	err = f.tracker.Update(podsGVR, pod, pod.Namespace)
	f.c.bindDone(pod.Name, err == nil)
	if err != nil {
		return true, nil, err
	}
	return true, b, nil
}

// wait holds the workload's writers back while more than 30 watch events
// are unread; room holds every write (the scheduler's binds, status
// patches and preemption deletes too) while n are, for at most 10 s.
// Events are counted as the informers' handlers see them, which is later
// than the watch channel is drained: the bound is conservative. Once the
// run is over (ctx done: its end, or a trace violation that stops it) no
// informer reads the watch any more, so wait returns ctx's error and the
// writer must not write: the fake watch would fill and panic.
func (f *fakeAPI) wait(ctx context.Context) error {
	for f.written.Load()-f.seen.Load() > 30 && ctx.Err() == nil {
		time.Sleep(100 * time.Microsecond)
	}
	return ctx.Err()
}

func (f *fakeAPI) room(n int64) {
	end := time.Now().Add(10 * time.Second)
	for {
		w := f.written.Load()
		if w-f.seen.Load() < n || time.Now().After(end) || f.c.ended() {
			if f.written.CompareAndSwap(w, w+1) {
				return
			}
			continue
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// resetServer empties a real server that earlier runs used (their pods,
// then their nodes) and waits until it is empty, so that one server
// serves a test's runs one after another (an API server starts in
// seconds of CPU, which a loaded machine makes minutes).
func resetServer(ctx context.Context, cfg *rest.Config) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var grace int64
	// A loaded server may end a large DeleteCollection early (a stream
	// error): the loop below deletes again until nothing is left.
	deleteAll := func() {
		_ = cs.CoreV1().Pods(Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &grace}, metav1.ListOptions{})
		_ = cs.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	}
	deleteAll()
	for end, again := time.Now().Add(2*time.Minute), time.Now().Add(10*time.Second); ; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(again) {
			deleteAll()
			again = time.Now().Add(10 * time.Second)
		}
		pods, err := cs.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(pods.Items) == 0 && len(nodes.Items) == 0 {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("reset: %d pods and %d nodes left after 2 minutes", len(pods.Items), len(nodes.Items))
		}
	}
}
