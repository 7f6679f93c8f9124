package parked

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitOnCond parks in sync.Cond.Wait until released.
type gate struct {
	mu   sync.Mutex
	cond sync.Cond
	open bool
}

func newGate() *gate {
	g := &gate{}
	g.cond.L = &g.mu
	return g
}

//go:noinline
func (g *gate) Pop() {
	g.mu.Lock()
	for !g.open {
		g.cond.Wait()
	}
	g.mu.Unlock()
}

func (g *gate) release() {
	g.mu.Lock()
	g.open = true
	g.cond.Broadcast()
	g.mu.Unlock()
}

func start(f func()) (ID, <-chan struct{}) {
	ids := make(chan ID)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ids <- Current()
		f()
	}()
	return <-ids, done
}

func TestCurrentIsTheRuntimesID(t *testing.T) {
	id := Current()
	s, ok := Lookup(id)
	if !ok {
		t.Fatalf("goroutine %d not in the runtime's list", id)
	}
	if s.Status != "running" || !s.In("TestCurrentIsTheRuntimesID") {
		t.Errorf("Lookup(Current()) = %v, want this test running", s)
	}
	if other, _ := start(func() {}); other == id {
		t.Errorf("another goroutine has the same id %d", id)
	}
}

func TestAwaitSeesAGoroutineParkedOnACondition(t *testing.T) {
	g := newGate()
	id, done := start(g.Pop)
	s, err := Await(id, ".Pop(", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != "sync.Cond.Wait" || !s.Parked() {
		t.Errorf("state %v, want parked in sync.Cond.Wait", s)
	}
	if !strings.Contains(Describe(id), "sync.Cond.Wait") {
		t.Errorf("Describe(%d) = %q", id, Describe(id))
	}
	// Parked with the wrong frame is not what was asked for.
	if _, err := Await(id, ".Push(", 20*time.Millisecond); err == nil {
		t.Error("Await with a frame not on the stack succeeded")
	}
	g.release()
	<-done
	if _, err := Await(id, ".Pop(", time.Second); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("Await of an exited goroutine: %v, want an error saying it exited", err)
	}
	if !strings.Contains(Describe(id), "exited") {
		t.Errorf("Describe of an exited goroutine = %q", Describe(id))
	}
}

func TestAwaitSeesChannelsAndSelect(t *testing.T) {
	ch := make(chan int)
	for _, c := range []struct {
		name, status string
		f            func()
	}{
		{"receive", "chan receive", func() { recvPop(ch) }},
		{"select", "select", func() { selectPop(ch) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, done := start(c.f)
			s, err := Await(id, "Pop(", 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if s.Status != c.status {
				t.Errorf("status %q, want %q", s.Status, c.status)
			}
			ch <- 1
			<-done
		})
	}
}

//go:noinline
func recvPop(ch chan int) { <-ch }

//go:noinline
func selectPop(ch chan int) {
	select {
	case <-ch:
	case <-time.After(time.Hour):
	}
}

//go:noinline
func spinPop(stop *atomic.Bool) {
	for !stop.Load() {
	}
}

// A goroutine that is busy (running, or runnable while another holds the
// processor) is never reported parked, however long one waits.
func TestAwaitTellsRunningAndRunnableFromParked(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var stop atomic.Bool
	defer stop.Store(true)
	// With one processor held by this goroutine, a new goroutine is
	// runnable and cannot be running.
	id, _ := start(func() { spinPop(&stop) })
	sawRunnable := false
	for range 100 {
		s, ok := Lookup(id)
		if !ok {
			t.Fatal("spinner exited")
		}
		if s.Parked() {
			t.Fatalf("a spinning goroutine reported parked: %v", s)
		}
		if s.Status == "runnable" {
			sawRunnable = true
			break
		}
	}
	// A goroutine running on another processor is stopped by the look
	// itself (runtime.Stack stops the world) and shows as runnable; only
	// the looking goroutine shows as running (TestCurrentIsTheRuntimesID).
	runtime.GOMAXPROCS(2)
	for range 20 {
		s, _ := Lookup(id)
		if s.Parked() || s.Status != "runnable" {
			t.Fatalf("a spinning goroutine on its own processor: %v, want runnable", s)
		}
		runtime.Gosched()
	}
	if !sawRunnable {
		t.Error("never saw the spinner runnable")
	}
	if _, err := Await(id, "spinPop", 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "did not park") {
		t.Errorf("Await on a spinning goroutine: %v, want a timeout", err)
	}
}

// Waiting for a mutex is not parked: the goroutine has not yet looked for
// work.
func TestAMutexWaitIsNotParked(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	id, done := start(func() { lockPop(&mu) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, _ := Lookup(id)
		if s.Parked() {
			t.Fatalf("waiting for a mutex reported parked: %v", s)
		}
		if strings.HasPrefix(s.Status, "sync.Mutex.Lock") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw the goroutine wait for the mutex; last %v", s)
		}
		runtime.Gosched()
	}
	if _, err := Await(id, "lockPop", 20*time.Millisecond); err == nil {
		t.Error("Await succeeded on a goroutine waiting for a mutex")
	}
	mu.Unlock()
	<-done
}

//go:noinline
func lockPop(mu *sync.Mutex) {
	mu.Lock()
	mu.Unlock()
}

func TestParseHeaders(t *testing.T) {
	all := parse([]byte("goroutine 7 [chan receive, 3 minutes]:\nmain.f()\n\t/x.go:1 +0x1\n\ngoroutine 9 gp=0xc0 m=nil [select, locked to thread]:\nmain.g(0x1)\n\t/y.go:2\n"))
	if s := all[7]; s.Status != "chan receive" || !s.In("main.f") || s.In("/x.go") {
		t.Errorf("goroutine 7: %+v", s)
	}
	if s := all[9]; s.Status != "select" || !s.Parked() || s.Top(1)[0] != "main.g" {
		t.Errorf("goroutine 9: %+v", s)
	}
	// A contended mutex's handoff, as seen under -race: not parked.
	all = parse([]byte("goroutine 11 [semacquire]:\nexample.(*Q).Snapshot(0xc0)\n\t/q.go:815 +0x178\n"))
	if s := all[11]; s.Status != "semacquire" || s.Parked() {
		t.Errorf("goroutine 11: %+v reported parked", s)
	}
}
