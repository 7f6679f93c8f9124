package impl

// BlockedPops returns how many Pops are waiting for activeQ to fill.
func (q *PriorityQueue) BlockedPops() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiting
}
