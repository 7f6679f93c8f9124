--------------------- MODULE SchedulingQueueHintsTimed ---------------------
(***************************************************************************)
(* SchedulingQueueHints with the two flushes run periodically, as          *)
(* upstream's loops do: flushBackoffQCompleted at every window start       *)
(* (every Window ticks, one second upstream) and                           *)
(* flushUnschedulablePodsLeftover every UnschedulablePodsFlushPeriod ticks, *)
(* both from time 0.  A flush that is due must run before the clock moves  *)
(* on; other operations interleave with it freely.                         *)
(*                                                                         *)
(* Liveness of the hints profile: under weak fairness of the clock, of     *)
(* both flushes, of every cluster event of the configuration (each keeps   *)
(* happening while it would change something) and of the end of every      *)
(* scheduling cycle (a pod in flight is handed back), a pod whose hints    *)
(* answer Queue for one of those events leaves unschedulablePods (or is    *)
(* gated, waiting for PreEnqueue, not for an event); a pod in backoffQ     *)
(* leaves it; and the bounded form as an invariant over the clock.  None   *)
(* for Pop: the scheduler may stop popping at any time.                    *)
(***************************************************************************)
EXTENDS SchedulingQueueHints

CONSTANTS
    UnschedulablePodsFlushPeriod  \* ticks between two leftover flushes

ASSUME UnschedulablePodsFlushPeriod \in Nat \ {0}

VARIABLES
    backoffQFlushDue,          \* the backoffQ flush of the current tick has not run yet
    unschedulablePodsFlushDue  \* the leftover flush of the current tick has not run yet

timedVars == <<vars, backoffQFlushDue, unschedulablePodsFlushDue>>
flushVars == <<backoffQFlushDue, unschedulablePodsFlushDue>>

TimedInit ==
    /\ Init
    /\ backoffQFlushDue = TRUE
    /\ unschedulablePodsFlushDue = TRUE

TimedTick ==
    /\ ~backoffQFlushDue /\ ~unschedulablePodsFlushDue
    /\ Tick
    /\ backoffQFlushDue' = ((now + 1) % Window = 0)
    /\ unschedulablePodsFlushDue' = ((now + 1) % UnschedulablePodsFlushPeriod = 0)

PeriodicFlushBackoffQ ==
    /\ backoffQFlushDue
    /\ FlushBackoffQCompleted
    /\ backoffQFlushDue' = FALSE
    /\ UNCHANGED unschedulablePodsFlushDue

\* When the leftover flush would record its event in a full in-flight list
\* (MaxRecords), this tick's flush is skipped rather than stopping the clock.
PeriodicFlushUnschedulablePods ==
    /\ unschedulablePodsFlushDue
    /\ IF LeftoverPods # {} /\ ~CanRecord THEN UNCHANGED vars ELSE FlushUnschedulablePodsLeftover
    /\ unschedulablePodsFlushDue' = FALSE
    /\ UNCHANGED backoffQFlushDue

Operations ==
    \/ \E p \in Pods : Add(p)
    \/ \E p \in Pods : Pop(p)
    \/ \E p \in Pods, f \in Failures : AddUnschedulableIfNotPresent(p, f)
    \/ \E p \in Pods : Done(p)
    \/ \E p \in Pods : Delete(p)
    \/ \E p \in Pods : Activate(p)
    \/ \E p \in Pods : Update(p)
    \/ \E e \in Events \cup {Wildcard} : MoveAllToActiveOrBackoffQueue(e)

TimedNext ==
    \/ Operations /\ UNCHANGED flushVars
    \/ PeriodicFlushBackoffQ
    \/ PeriodicFlushUnschedulablePods
    \/ TimedTick

\* The cluster events of the configuration keep happening.
EventHappens(e) == MoveAllToActiveOrBackoffQueue(e) /\ UNCHANGED flushVars

\* A scheduling cycle ends: the pod is handed back or Done.  Without this,
\* a pod kept in flight forever would keep the in-flight list full
\* (MaxRecords, an artefact of the bound) and no event could happen.
FinishCycle(p) ==
    /\ \/ Done(p)
       \/ \E f \in Failures : AddUnschedulableIfNotPresent(p, f)
    /\ UNCHANGED flushVars

TimedSpec ==
    /\ TimedInit
    /\ [][TimedNext]_timedVars
    /\ WF_timedVars(TimedTick)
    /\ WF_timedVars(PeriodicFlushBackoffQ)
    /\ WF_timedVars(PeriodicFlushUnschedulablePods)
    /\ \A e \in Events : WF_timedVars(EventHappens(e))
    /\ \A p \in Pods : WF_timedVars(FinishCycle(p))

TimedTypeOK == TypeOK /\ backoffQFlushDue \in BOOLEAN /\ unschedulablePodsFlushDue \in BOOLEAN

-----------------------------------------------------------------------------
\* Bounded: a pod in backoffQ is gone once the window after its expiry
\* starts (the flush of that window start releases it).
BackoffDeadline(p) == BackoffExpiry(p) + Window
L1hBackoffBound == \A p \in backoffQ : now <= BackoffDeadline(p)

\* A pod whose hints answer Queue for an event of the configuration.
WaitsFor(p, e) ==
    /\ p \in unschedulablePods
    /\ gatingPlugin[p] = NoPlugin
    /\ IsEventOfInterest(e)
    /\ PodStrategy(p, Occurrence(e, NoPod)) # Skip

\* No lost event, as liveness: such a pod leaves unschedulablePods, or is
\* gated by PreEnqueue (which then decides, not the event).
HintQueueLeadsOut ==
    \A p \in Pods, e \in Events :
        WaitsFor(p, e) ~> (p \notin unschedulablePods \/ gatingPlugin[p] # NoPlugin)

\* A pod in backoffQ leaves it (to activeQ, by Pop, or deleted), for pods
\* whose deadline falls within MaxTime.
L1hBackoff ==
    \A p \in Pods : (p \in backoffQ /\ BackoffDeadline(p) <= MaxTime) ~> (p \notin backoffQ)

ClockReachesHorizon == <>(now = MaxTime)
=============================================================================
