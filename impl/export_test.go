package impl

// BlockedPops returns how many Pops are waiting for activeQ to fill.
func (q *PriorityQueue) BlockedPops() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiting
}

// FlushesRunning reports whether the periodic flushes' goroutines run.
func (q *PriorityQueue) FlushesRunning() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.running
}

// CopyBlock is copyBlock: how many Pop copies one allocation holds.
const CopyBlock = copyBlock
