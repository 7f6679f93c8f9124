// Package parked tells whether a goroutine is really parked inside a
// blocking operation, not merely started.
//
// A test of a lost wake-up (a Pop that is never woken by the Add that
// fills activeQ) is vacuous unless the Pop was asleep before the Add: a Pop
// that has only been started usually finds the pod and never waits, and
// the test passes whether or not the queue signals. Sleeping "long enough"
// before the Add is no ordering at all. This package orders by
// observation instead: it reads the runtime's own account of every
// goroutine (runtime.Stack with all=true) until the goroutine in question
// shows a waiting state (sync.Cond.Wait, chan receive, select, ...) with
// the expected frame (say ".Pop(") on its stack. Only then has the
// goroutine committed to waiting: whatever the test does next must wake
// it.
//
// Waiting on a mutex (sync.Mutex.Lock, sync.RWMutex.*) is not parked in
// this sense: such a goroutine has not yet looked for work and will, as
// soon as it gets the lock.
//
// runtime.Stack stops the world; Await polls with a growing pause between
// looks, so it is cheap while it waits and the pause is never what orders
// anything: the observed state is.
package parked

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// ID is a goroutine's runtime id, as printed in a stack trace.
type ID int64

// Current returns the id of the calling goroutine. Record it as the first
// thing a goroutine does, then hand it to Await from another goroutine.
func Current() ID {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	id, ok := parseID(buf[:n])
	if !ok {
		panic(fmt.Sprintf("parked: cannot read the goroutine id from %q", buf[:n]))
	}
	return id
}

// parseID reads N from a header "goroutine N [...]:" (or "goroutine N
// gp=... [...]:").
func parseID(b []byte) (ID, bool) {
	rest, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0, false
	}
	end := bytes.IndexAny(rest, " [")
	if end < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return ID(n), err == nil
}

// State is one goroutine as the runtime describes it.
type State struct {
	ID ID
	// Status is the text between the brackets of the header without the
	// time it has waited: "running", "runnable", "sync.Cond.Wait",
	// "chan receive", "select", "sync.Mutex.Lock", ...
	Status string
	// Stack is the trace below the header: function and file lines.
	Stack string
}

// waitStates are the statuses of a goroutine asleep until something wakes
// it (prefixes: "chan receive (nil chan)", "select (no cases)"). Not
// "semacquire": a goroutine that only takes and releases a contended
// mutex (a Pop that spins over Snapshot) was seen in it under -race on a
// loaded machine, and a blocking Pop built on sync.Cond, channels or a
// WaitGroup shows their own statuses.
var waitStates = []string{
	"sync.Cond.Wait", "chan receive", "chan send", "select",
	"sync.WaitGroup.Wait",
}

// Parked reports whether the goroutine is asleep in a blocking operation
// that something else must end: a condition variable, a channel, a select
// or a semaphore. Running, runnable, waiting for a mutex and sleeping
// (time.Sleep ends by itself) are not parked.
func (s State) Parked() bool {
	for _, w := range waitStates {
		if strings.HasPrefix(s.Status, w) {
			return true
		}
	}
	return false
}

// In reports whether frame occurs in a function line of the stack, e.g.
// ".Pop(" or "(*PriorityQueue).Pop".
func (s State) In(frame string) bool {
	for _, line := range strings.Split(s.Stack, "\n") {
		if !strings.HasPrefix(line, "\t") && strings.Contains(line, frame) {
			return true
		}
	}
	return false
}

// Top returns the first n function lines of the stack (without arguments
// and file lines), innermost first: where the goroutine is, for a report.
func (s State) Top(n int) []string {
	var out []string
	for _, line := range strings.Split(s.Stack, "\n") {
		if line == "" || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "created by ") {
			continue
		}
		if i := strings.LastIndex(line, "("); i > 0 {
			line = line[:i]
		}
		out = append(out, line)
		if len(out) == n {
			break
		}
	}
	return out
}

func (s State) String() string {
	return fmt.Sprintf("goroutine %d [%s] in %s", s.ID, s.Status, strings.Join(s.Top(4), " < "))
}

// All returns every goroutine, by id.
func All() map[ID]State {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return parse(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// Lookup returns goroutine id's state, and false if it does not exist
// (it has exited, or never did).
func Lookup(id ID) (State, bool) {
	s, ok := All()[id]
	return s, ok
}

func parse(b []byte) map[ID]State {
	out := make(map[ID]State)
	for _, block := range bytes.Split(b, []byte("\n\n")) {
		header, body, _ := bytes.Cut(block, []byte("\n"))
		id, ok := parseID(header)
		if !ok {
			continue
		}
		status := ""
		if i, j := bytes.IndexByte(header, '['), bytes.LastIndexByte(header, ']'); i >= 0 && j > i {
			status = string(header[i+1 : j])
		}
		// "chan receive, 2 minutes", "select, locked to thread".
		if i := strings.IndexByte(status, ','); i >= 0 {
			status = status[:i]
		}
		out[id] = State{ID: id, Status: status, Stack: string(body)}
	}
	return out
}

// Await waits until goroutine id is parked (State.Parked) with frame on
// its stack, and returns that state. It fails if the goroutine exits, or
// if timeout passes first; the error says the last state seen. The
// timeout is a bound on a hang, never the means of ordering: Await returns
// as soon as the state is observed.
func Await(id ID, frame string, timeout time.Duration) (State, error) {
	return AwaitUnless(id, frame, nil, timeout)
}

// ErrReturned is AwaitUnless's error when done was closed first: the
// blocking call returned instead of parking.
var ErrReturned = errors.New("parked: the call returned without blocking")

// AwaitUnless is Await that also gives up, with ErrReturned, as soon as
// done is closed: the caller closes done when the call it expects to block
// returns, so a call that never blocks is told at once rather than after
// timeout. A nil done never closes.
func AwaitUnless(id ID, frame string, done <-chan struct{}, timeout time.Duration) (State, error) {
	deadline := time.Now().Add(timeout)
	pause := time.Duration(0)
	var last State
	for {
		select {
		case <-done:
			return State{}, ErrReturned
		default:
		}
		s, ok := Lookup(id)
		if !ok {
			return State{}, fmt.Errorf("parked: goroutine %d exited before it parked in %s (last seen: %v)", id, frame, last)
		}
		if s.Parked() && s.In(frame) {
			return s, nil
		}
		last = s
		if time.Now().After(deadline) {
			return s, fmt.Errorf("parked: goroutine %d did not park in %s within %v; it is %v", id, frame, timeout, s)
		}
		switch {
		case pause == 0:
			runtime.Gosched()
			pause = time.Microsecond
		default:
			time.Sleep(pause)
			pause = min(2*pause, time.Millisecond)
		}
	}
}

// Describe lists the given goroutines, one line each, for a failure
// report; a goroutine that no longer exists is said to have exited.
func Describe(ids ...ID) string {
	all := All()
	var b strings.Builder
	for _, id := range ids {
		if s, ok := all[id]; ok {
			fmt.Fprintf(&b, "  %v\n", s)
		} else {
			fmt.Fprintf(&b, "  goroutine %d has exited\n", id)
		}
	}
	return b.String()
}
