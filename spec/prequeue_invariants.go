package spec

// I8 (hints profile with PreQueueing): pre-queueing hints only ever leave
// pods parked, and only where a pre-queueing hint was unsound. After a move
// request (R4h, R11h) every pod it took out of unschedulablePods would have
// been taken by the same request without pre-queueing hints; and a pod it
// left there that the request without them would have taken was left
// because every rejector whose queueing hint requeues it was narrowed and
// did not name it (R21, R22). Such a pre-queueing hint is unsound (it left
// out a pod its own queueing hint requeues): the contract allows it, as
// upstream does, because soundness is the plugin's promise and the queue
// cannot check it, and the wait stays bounded: the leftover flush (R6h) is
// a wildcard, which pre-queueing hints never narrow, so L1 holds
// unchanged. With sound pre-queueing hints a narrowed request therefore
// moves exactly the pods the unnarrowed one moves.
//
// A pod moved and gated again by its PreEnqueue plugins (R17) is back in
// unschedulablePods whatever the narrowing, and is not judged here; pod
// group members are the entity's (G rules) and are not either.

// I8NarrowingOnlySkips checks I8 on a move request step that carries its
// request (StepRecord.Move).
func I8NarrowingOnlySkips(cfg Config, before, after *Snapshot, step StepRecord) error {
	if !cfg.PreQueueing || step.Move == nil || step.Err != nil ||
		(step.Rule != R4MoveAll && step.Rule != R11AssignedPod) {
		return nil
	}
	occ, preCheck := step.Move.Occurrence, step.Move.PreCheck
	if !cfg.IsEventOfInterestHints(occ.Event) {
		return nil
	}
	n := cfg.PreQueueingNarrowing(occ)
	for i := range before.UnschedulablePods {
		p := &before.UnschedulablePods[i]
		if p.Pod.Group != "" || (preCheck != nil && !preCheck(p.Pod)) ||
			(p.Gated() && !cfg.GatingEventMatches(p.GatingPlugin, occ.Event)) {
			continue
		}
		full := cfg.PodStrategy(p, occ)
		loc, now := after.Find(p.Key())
		if loc != InUnschedulablePods {
			if full == StrategySkip {
				return broken("I8", "pod %s left unschedulablePods for %s on %s, which without pre-queueing hints would leave it parked (narrowing %s)",
					p.Key(), loc, occ, n)
			}
			continue
		}
		if full == StrategySkip || (now.Gated() && cfg.RunPreEnqueue(now.Pod, now.GatingPlugin) != "") {
			continue
		}
		if n.Evaluates(p.Key()) && cfg.MoveStrategy(p, occ, n) != StrategySkip {
			return broken("I8", "pod %s stayed in unschedulablePods on %s, though the pre-queueing hints (%s) let a queueing hint requeue it (%s)",
				p.Key(), occ, n, cfg.MoveStrategy(p, occ, n))
		}
	}
	return nil
}
