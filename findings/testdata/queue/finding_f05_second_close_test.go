package queue

import (
	"context"
	"testing"
)

// TestFinding_F05_SecondClosePanics: Close closes the queue's stop
// channel without looking whether it is closed already, so a second Close
// panics. The scheduler closes its queue once; any other owner that shuts
// down from two paths (a deferred Close and an error path) crashes.
func TestFinding_F05_SecondClosePanics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q, _ := findingsNewQueue(ctx)
	q.Close()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("a second Close panicked: %v", r)
		}
	}()
	q.Close()
}
