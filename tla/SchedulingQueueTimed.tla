------------------------ MODULE SchedulingQueueTimed ------------------------
(***************************************************************************)
(* SchedulingQueue with the two flushes run periodically, as upstream's    *)
(* wait.Until loops do: flushBackoffQCompleted every BackoffQFlushPeriod   *)
(* ticks (1 s upstream) and flushUnschedulablePodsLeftover every           *)
(* UnschedulablePodsFlushPeriod ticks (30 s upstream), both starting at    *)
(* time 0.  A flush that is due must run before the clock moves on; other  *)
(* operations interleave with it freely.  A flush runs only when due.      *)
(*                                                                         *)
(* This is where liveness L1 is checked: the bounded form as invariants    *)
(* over the clock, and the unbounded form as leads-to properties under     *)
(* weak fairness of the clock and of both flushes.                         *)
(***************************************************************************)
EXTENDS SchedulingQueue

CONSTANTS
    BackoffQFlushPeriod,          \* ticks between two backoffQ flushes
    UnschedulablePodsFlushPeriod  \* ticks between two leftover flushes

ASSUME BackoffQFlushPeriod \in Nat \ {0} /\ UnschedulablePodsFlushPeriod \in Nat \ {0}

VARIABLES
    backoffQFlushDue,          \* the backoffQ flush of the current tick has not run yet
    unschedulablePodsFlushDue  \* the leftover flush of the current tick has not run yet

timedVars == <<vars, backoffQFlushDue, unschedulablePodsFlushDue>>
flushVars == <<backoffQFlushDue, unschedulablePodsFlushDue>>

TimedInit ==
    /\ Init
    /\ backoffQFlushDue = TRUE
    /\ unschedulablePodsFlushDue = TRUE

\* The clock moves on only once the flushes due now have run.
TimedTick ==
    /\ ~backoffQFlushDue /\ ~unschedulablePodsFlushDue
    /\ Tick
    /\ backoffQFlushDue' = ((now + 1) % BackoffQFlushPeriod = 0)
    /\ unschedulablePodsFlushDue' = ((now + 1) % UnschedulablePodsFlushPeriod = 0)

PeriodicFlushBackoffQ ==
    /\ backoffQFlushDue
    /\ FlushBackoffQCompleted
    /\ backoffQFlushDue' = FALSE
    /\ UNCHANGED unschedulablePodsFlushDue

PeriodicFlushUnschedulablePods ==
    /\ unschedulablePodsFlushDue
    /\ FlushUnschedulablePodsLeftover
    /\ unschedulablePodsFlushDue' = FALSE
    /\ UNCHANGED backoffQFlushDue

\* Every operation of the scheduler and of the informers, unchanged.
Operations ==
    \/ \E p \in Pods : Add(p)
    \/ \E p \in Pods : Pop(p)
    \/ \E p \in Pods, r \in RejectorSets : AddUnschedulableIfNotPresent(p, r)
    \/ \E p \in Pods : Done(p)
    \/ \E p \in Pods : Delete(p)
    \/ \E p \in Pods : Activate(p)
    \/ \E e \in Events \cup {Wildcard} : MoveAllToActiveOrBackoffQueue(e)

TimedNext ==
    \/ Operations /\ UNCHANGED flushVars
    \/ PeriodicFlushBackoffQ
    \/ PeriodicFlushUnschedulablePods
    \/ TimedTick

\* Weak fairness of the clock and the flush loops; none for the scheduler,
\* which may stop popping at any time.
TimedSpec ==
    /\ TimedInit
    /\ [][TimedNext]_timedVars
    /\ WF_timedVars(TimedTick)
    /\ WF_timedVars(PeriodicFlushBackoffQ)
    /\ WF_timedVars(PeriodicFlushUnschedulablePods)

-----------------------------------------------------------------------------
(***************************************************************************)
(* L1, bounded: a pod in backoffQ is gone by BackoffExpiry +               *)
(* BackoffQFlushPeriod (it is released by the first flush strictly after   *)
(* its expiry), and a pod in unschedulablePods is gone by Timestamp +      *)
(* MaxInUnschedulable + UnschedulablePodsFlushPeriod.  "Gone by t" means   *)
(* the clock never passes t while the pod is still there.                  *)
(***************************************************************************)
BackoffDeadline(p) == BackoffExpiry(p) + BackoffQFlushPeriod
UnschedulableDeadline(p) == timestamp[p] + MaxInUnschedulable + UnschedulablePodsFlushPeriod

L1BackoffBound == \A p \in backoffQ : now <= BackoffDeadline(p)
L1UnschedulableBound == \A p \in unschedulablePods : now <= UnschedulableDeadline(p)

TimedTypeOK == TypeOK /\ backoffQFlushDue \in BOOLEAN /\ unschedulablePodsFlushDue \in BOOLEAN

(***************************************************************************)
(* L1 as liveness: every pod in backoffQ reaches activeQ (or is deleted),  *)
(* and every pod in unschedulablePods leaves it.  The clock stops at       *)
(* MaxTime, so this is claimed for pods whose deadline falls within it.    *)
(***************************************************************************)
L1Backoff ==
    \A p \in Pods :
        (p \in backoffQ /\ BackoffDeadline(p) <= MaxTime) ~> (p \in activeQ \/ p \notin Held)

L1Unschedulable ==
    \A p \in Pods :
        (p \in unschedulablePods /\ UnschedulableDeadline(p) <= MaxTime) ~> (p \notin unschedulablePods)

\* Time does not stop before the horizon: no behaviour gets stuck with a
\* flush due or the clock short of MaxTime.
ClockReachesHorizon == <>(now = MaxTime)

=============================================================================
