package conformance

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// A scenario's "pop blocked" is only a test of waking if the Pop was asleep
// before the operation that must wake it: a Pop merely started usually
// finds the pod and never waits, and the scenario would pass whether or not
// the queue signals. Sleeping "long enough" is no ordering at all. So the
// runner reads the runtime's own account of the goroutine (runtime.Stack
// of all goroutines) until it shows a waiting state with a Pop frame on its
// stack; only then does it perform the next operation.

// goroutineID returns the runtime id of the calling goroutine.
func goroutineID() int64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	id, ok := parseGoroutineID(buf[:n])
	if !ok {
		panic(fmt.Sprintf("conformance: cannot read the goroutine id from %q", buf[:n]))
	}
	return id
}

// parseGoroutineID reads N from a header "goroutine N [...]:".
func parseGoroutineID(b []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0, false
	}
	end := bytes.IndexAny(rest, " [")
	if end < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return n, err == nil
}

// parkedStates are the statuses of a goroutine asleep until something
// wakes it. Waiting for a mutex is not parked: such a goroutine has not
// yet looked at activeQ.
// ("semacquire" is left out too: older runtimes show a mutex wait so.)
var parkedStates = []string{"sync.Cond.Wait", "chan receive", "select", "sync.WaitGroup.Wait"}

// goroutineState returns the status and stack of goroutine id, or ok=false
// if it no longer exists.
func goroutineState(id int64) (status, stack string, ok bool) {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		gid, ok := parseGoroutineID(g)
		if !ok || gid != id {
			continue
		}
		header, rest, _ := bytes.Cut(g, []byte("\n"))
		i, j := bytes.IndexByte(header, '['), bytes.LastIndexByte(header, ']')
		if i < 0 || j < i {
			return "", string(rest), true
		}
		status = string(header[i+1 : j])
		if k := strings.Index(status, ", "); k >= 0 { // "chan receive, 2 minutes"
			status = status[:k]
		}
		return status, string(rest), true
	}
	return "", "", false
}

func isParked(status string) bool {
	if strings.Contains(status, "Mutex") {
		return false
	}
	for _, s := range parkedStates {
		if strings.HasPrefix(status, s) {
			return true
		}
	}
	return false
}

// awaitParked waits until goroutine id is parked with frame on its stack
// (e.g. ".Pop("), or done is closed (it returned), or the deadline passes.
// It polls with a growing pause; the pause never orders anything, the
// observed state does.
func awaitParked(id int64, frame string, done <-chan struct{}, deadline time.Duration) error {
	end := time.Now().Add(deadline)
	pause := 50 * time.Microsecond
	for {
		select {
		case <-done:
			return fmt.Errorf("Pop returned without blocking")
		default:
		}
		status, stack, ok := goroutineState(id)
		if !ok {
			return fmt.Errorf("the Pop goroutine is gone")
		}
		if isParked(status) && strings.Contains(stack, frame) {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("Pop did not park within %v (goroutine status %q)", deadline, status)
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}
