package queue

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// TestFinding_F01_PodHandedBackDuringPopIsLost: a pod that fails its
// attempt is put in backoffQ, and only afterwards, in a deferred call, is
// its in-flight record cleared. A Pop that runs in between takes the pod
// from backoffQ (SchedulerPopFromBackoffQ), finds its UID still in flight,
// logs it as tracked twice and drops it. The pod is then in no queue and
// not in flight: nothing schedules it again until the pod object changes.
//
// The interleaving is forced, not waited for: the failure path logs that
// the pod moved to its queue after the move and before it returns, and the
// logger given to it blocks there until the Pop has run.
func TestFinding_F01_PodHandedBackDuringPopIsLost(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.Background()
	q, _ := findingsNewQueue(ctx)
	closeQueue := sync.OnceFunc(q.Close) // a second Close panics (F05)
	defer closeQueue()
	pod := findingsPod("a")
	findingsAdd(ctx, q, pod)
	pInfo := findingsPopAndRecordNodeAdd(t, logger, q, pod)

	moved, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	failLogger := logr.New(&f01Sink{info: func(msg string, kv []any) {
		if strings.HasPrefix(msg, "Pod moved to an internal scheduling queue") && f01Has(kv, "schedulingCycle") {
			once.Do(func() { close(moved); <-release })
		}
	}})
	failed := make(chan error, 1)
	go func() { failed <- findingsFail(failLogger, q, pInfo, q.SchedulingCycle()) }()
	select {
	case <-moved:
	case err := <-failed:
		t.Fatalf("the failure path returned (%v) without logging the move: the reproduction does not fit this release", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the failure path did not log the move within 30s")
	}

	// The failure path is parked after moving the pod. A Pop now.
	dropped := make(chan struct{}, 1)
	popLogger := logr.New(&f01Sink{err: func(msg string) {
		if strings.Contains(msg, "tracked in multiple places") || strings.Contains(msg, "Discarding the popped") {
			select {
			case dropped <- struct{}{}:
			default:
			}
		}
	}})
	popped := make(chan string, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p, err := findingsPop(popLogger, q)
		switch {
		case err != nil:
			popped <- "error " + err.Error()
		case p == nil:
			popped <- "nothing (closed)"
		default:
			popped <- p.Pod.Name
		}
	}()
	select {
	case <-dropped: // the bug's path: the Pop dropped the pod and waits again
	case got := <-popped:
		t.Logf("the Pop returned %s while the failure path was parked", got)
	case <-time.After(30 * time.Second):
		t.Log("the Pop neither returned nor dropped the pod within 30s")
	}
	close(release)
	if err := <-failed; err != nil {
		t.Fatalf("handing back %s: %v", pod.Name, err)
	}
	pending, inFlight, summary := findingsHeld(q, pod)
	if pending+inFlight == 0 {
		t.Errorf("pod %s is lost: in no queue [%s] and not in flight, after a Pop ran while its failure was handed back", pod.Name, summary)
	}
	closeQueue()
	wg.Wait()
}

// f01Sink is a logr sink that hands every message to a function.
type f01Sink struct {
	info func(msg string, kv []any)
	err  func(msg string)
}

func (s *f01Sink) Init(logr.RuntimeInfo)  {}
func (s *f01Sink) Enabled(level int) bool { return true }
func (s *f01Sink) Info(level int, msg string, kv ...any) {
	if s.info != nil {
		s.info(msg, kv)
	}
}
func (s *f01Sink) Error(err error, msg string, kv ...any) {
	if s.err != nil {
		s.err(msg)
	}
}
func (s *f01Sink) WithValues(kv ...any) logr.LogSink { return s }
func (s *f01Sink) WithName(name string) logr.LogSink { return s }

func f01Has(kv []any, key string) bool {
	for i := 0; i < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok && k == key {
			return true
		}
	}
	return false
}
