package impl_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// checked is the queue under test with its internal consistency checked
// after every operation: impl's own tests drive it instead of the bare
// queue, so any step that leaves an index, heap, group or free list
// disagreeing with the pods held fails the test at that step, named.
// Errorf, not Fatalf: operations may run on other goroutines.
type checked struct {
	*impl.PriorityQueue
	t testing.TB
}

func (c *checked) check(op string, args ...any) {
	c.t.Helper()
	if err := c.CheckConsistency(); err != nil {
		c.t.Errorf("after %s: the implementation's structures disagree:\n%v\nqueue: %v", fmt.Sprintf(op, args...), err, c.PriorityQueue)
	}
}

func (c *checked) Add(p *spec.Pod) error {
	c.t.Helper()
	err := c.PriorityQueue.Add(p)
	c.check("Add(%v)", p)
	return err
}

func (c *checked) Pop() (*spec.QueuedPodInfo, int64, error) {
	c.t.Helper()
	p, cycle, err := c.PriorityQueue.Pop()
	c.check("Pop")
	return p, cycle, err
}

func (c *checked) PopContext(ctx context.Context) (*spec.QueuedPodInfo, int64, error) {
	c.t.Helper()
	p, cycle, err := c.PriorityQueue.PopContext(ctx)
	c.check("PopContext")
	return p, cycle, err
}

func (c *checked) AddUnschedulableIfNotPresent(p *spec.QueuedPodInfo, cycle int64) error {
	c.t.Helper()
	err := c.PriorityQueue.AddUnschedulableIfNotPresent(p, cycle)
	c.check("AddUnschedulableIfNotPresent(%v, %d)", p, cycle)
	return err
}

func (c *checked) MoveAllToActiveOrBackoffQueue(event spec.ClusterEvent, preCheck spec.PreEnqueueCheck) {
	c.t.Helper()
	// Checked even when preCheck panics: all or nothing.
	defer c.check("MoveAllToActiveOrBackoffQueue(%v)", event)
	c.PriorityQueue.MoveAllToActiveOrBackoffQueue(event, preCheck)
}

func (c *checked) FlushBackoffQCompleted() {
	c.t.Helper()
	c.PriorityQueue.FlushBackoffQCompleted()
	c.check("FlushBackoffQCompleted")
}

func (c *checked) FlushUnschedulablePodsLeftover() {
	c.t.Helper()
	c.PriorityQueue.FlushUnschedulablePodsLeftover()
	c.check("FlushUnschedulablePodsLeftover")
}

func (c *checked) Activate(pods []*spec.Pod) error {
	c.t.Helper()
	err := c.PriorityQueue.Activate(pods)
	c.check("Activate(%v)", pods)
	return err
}

func (c *checked) Update(oldPod, newPod *spec.Pod) error {
	c.t.Helper()
	err := c.PriorityQueue.Update(oldPod, newPod)
	c.check("Update(%v)", newPod)
	return err
}

func (c *checked) Delete(p *spec.Pod) error {
	c.t.Helper()
	err := c.PriorityQueue.Delete(p)
	c.check("Delete(%v)", p)
	return err
}

func (c *checked) AssignedPodAdded(p *spec.Pod) error {
	c.t.Helper()
	err := c.PriorityQueue.AssignedPodAdded(p)
	c.check("AssignedPodAdded(%v)", p)
	return err
}

func (c *checked) AssignedPodUpdated(oldPod, newPod *spec.Pod, event spec.ClusterEvent) error {
	c.t.Helper()
	err := c.PriorityQueue.AssignedPodUpdated(oldPod, newPod, event)
	c.check("AssignedPodUpdated(%v, %v)", newPod, event)
	return err
}

func (c *checked) Done(uid spec.UID) error {
	c.t.Helper()
	err := c.PriorityQueue.Done(uid)
	c.check("Done(%q)", uid)
	return err
}

func (c *checked) Close() {
	c.t.Helper()
	c.PriorityQueue.Close()
	c.check("Close")
}

var _ spec.Queue = (*checked)(nil)
