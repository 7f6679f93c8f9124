-------------------------- MODULE SchedulingQueue --------------------------
(***************************************************************************)
(* The kube-scheduler scheduling queue, classic mode: upstream v1.33.13,   *)
(* pkg/scheduler/backend/queue, with SchedulerQueueingHints and            *)
(* SchedulerPopFromBackoffQ off.  The contract is the doc comment of       *)
(* spec.Queue in the Go package spec (go doc ./spec Queue): rule ids       *)
(* R1..R13 and invariant ids I1..I6 are its ids, "R4" below means R4 of    *)
(* spec.Queue, and names are those of the Go code (spec/, model/).  The    *)
(* comments here add only what is this module's own: bounds, ticks, when   *)
(* an action is enabled, the ghost of I3.  model/model.go is the           *)
(* executable twin of this module: tla/agreement_test.go checks that both  *)
(* have the same reachable state graph for a small bound.                  *)
(*                                                                         *)
(* Time is a natural number of ticks, bounded by MaxTime so that the state *)
(* space is finite; both flushes are actions that may happen at any time   *)
(* (SchedulingQueueTimed.tla adds their periods).  schedulingCycle is      *)
(* bounded by MaxCycle: Pop is disabled once it is reached.                *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    Pods,               \* pod keys
    Priority,           \* [Pods -> Int]: higher is popped first
    Plugins,            \* plugin names
    Events,             \* cluster events; Wildcard is not one of them
    Wildcard,           \* the wildcard event every plugin is interested in
    Registered,         \* [Plugins -> SUBSET Events]: events each plugin registered
    RejectorSets,       \* the sets of plugins a failure may report (SUBSET SUBSET Plugins)
    InitialBackoff,     \* podInitialBackoffDuration, in ticks
    MaxBackoff,         \* podMaxBackoffDuration, in ticks
    MaxInUnschedulable, \* podMaxInUnschedulablePodsDuration, in ticks
    MaxTime,            \* the clock stops here
    MaxCycle,           \* Pop stops once schedulingCycle reaches this
    Shortcut,           \* TRUE; FALSE removes the moveRequestCycle shortcut of R3
                        \* (the negative configuration, which must break I3)
    Extensions,         \* the optional operations in Next: SUBSET {"Close", "Update"}
    Mutation            \* "none"; else one deliberate bug of a negative configuration:
                        \* "PopAfterClose" (breaks NoPopAfterClose),
                        \* "UpdateIgnoresBackoff" (breaks I2Update),
                        \* "UpdateQueuesInFlight" (breaks I1)

ASSUME /\ Priority \in [Pods -> Int]
       /\ Wildcard \notin Events
       /\ Registered \in [Plugins -> SUBSET Events]
       /\ RejectorSets \subseteq SUBSET Plugins
       /\ InitialBackoff \in Nat \ {0} /\ MaxBackoff >= InitialBackoff
       /\ MaxInUnschedulable \in Nat \ {0}
       /\ MaxTime \in Nat /\ MaxCycle \in Nat
       /\ Shortcut \in BOOLEAN
       /\ Extensions \subseteq {"Close", "Update"}
       /\ Mutation \in {"none", "PopAfterClose", "UpdateIgnoresBackoff", "UpdateQueuesInFlight"}

VARIABLES
    activeQ,                  \* pods waiting to be popped
    backoffQ,                 \* pods waiting for their backoff to complete
    unschedulablePods,        \* pods waiting for an event (or the leftover flush)
    inFlight,                 \* pods popped and not yet handed back or Done
    attempts,                 \* [Pods -> Nat]: QueuedPodInfo.Attempts
    timestamp,                \* [Pods -> time]: QueuedPodInfo.Timestamp
    initialAttemptTimestamp,  \* [Pods -> time \cup {-1}]: -1 is Go's zero time
    unschedulablePlugins,     \* [Pods -> SUBSET Plugins]: who rejected it last
    podSchedulingCycle,       \* [Pods -> Nat]: the cycle Pop returned, for a pod in flight
    now,                      \* the clock
    schedulingCycle,          \* number of Pops so far
    moveRequestCycle,         \* schedulingCycle at the last move request, -1 before any
    lostWakeUp,               \* ghost for I3: a pod once landed in unschedulablePods
                              \* although the shortcut should have sent it to backoffQ
    closed,                   \* Close happened (R13): Snapshot.Closed
    poppedAfterClose,         \* ghost: a Pop succeeded after Close
    updateSkippedBackoff      \* ghost: an Update sent a backing-off pod to activeQ

queueVars == <<activeQ, backoffQ, unschedulablePods, inFlight>>
podVars == <<attempts, timestamp, initialAttemptTimestamp, unschedulablePlugins, podSchedulingCycle>>
\* The variables of Close and Update, which the other actions leave alone.
extVars == <<closed, poppedAfterClose, updateSkippedBackoff>>
vars == <<queueVars, podVars, now, schedulingCycle, moveRequestCycle, lostWakeUp, extVars>>

\* Every pod the queue holds.
Held == activeQ \cup backoffQ \cup unschedulablePods \cup inFlight

NoTime == -1

(***************************************************************************)
(* R7, in ticks, with its boundary: a pod whose expiry equals now is still *)
(* backing off (spec.Config.IsBackingOff).                                 *)
(***************************************************************************)
BackoffDuration(a) ==
    IF a = 0 THEN 0
    ELSE LET d == InitialBackoff * 2^(a - 1)
         IN  IF d > MaxBackoff THEN MaxBackoff ELSE d

\* The expiry and backoff test for a pod with the given attempts and Timestamp,
\* so that they can be applied to primed values as well.
ExpiryOf(a, ts) == ts + BackoffDuration(a)
BackingOff(a, ts, t) == a > 0 /\ ExpiryOf(a, ts) >= t

BackoffExpiry(p) == ExpiryOf(attempts[p], timestamp[p])
IsBackingOff(p) == BackingOff(attempts[p], timestamp[p], now)

(***************************************************************************)
(* The activeQ order (PrioritySort): higher priority first, then earlier   *)
(* Timestamp.  Ties are unordered upstream (heap layout), so Pop may take  *)
(* any maximal pod (I5, model.PopCandidates).                              *)
(***************************************************************************)
Less(p, q) == \/ Priority[p] > Priority[q]
              \/ Priority[p] = Priority[q] /\ timestamp[p] < timestamp[q]

PopCandidates == {p \in activeQ : ~\E q \in activeQ : Less(q, p)}

(***************************************************************************)
(* R4: which events matter (spec.PluginEvents.IsEventOfInterest and        *)
(* IsPodWorthRequeuing), with events as names and "registered" as set      *)
(* membership.                                                             *)
(***************************************************************************)
IsEventOfInterest(e) == e = Wildcard \/ \E pl \in Plugins : e \in Registered[pl]

IsPodWorthRequeuing(p, e) ==
    \/ unschedulablePlugins[p] = {}
    \/ e = Wildcard
    \/ \E pl \in unschedulablePlugins[p] : e \in Registered[pl]

\* Entering activeQ (the Moves of spec.Queue) sets a zero (NoTime)
\* InitialAttemptTimestamp to now.
FirstActive(S) ==
    [p \in Pods |-> IF p \in S /\ initialAttemptTimestamp[p] = NoTime
                    THEN now ELSE initialAttemptTimestamp[p]]

(***************************************************************************)
(* A move request for event e over S, a subset of unschedulablePods (the   *)
(* Moves of spec.Queue; R4, R6).                                           *)
(***************************************************************************)
MovePods(S, e) ==
    IF ~IsEventOfInterest(e)
    THEN UNCHANGED <<queueVars, podVars, moveRequestCycle>>
    ELSE LET moved   == {p \in S : IsPodWorthRequeuing(p, e)}
             backoff == {p \in moved : IsBackingOff(p)}
             active  == moved \ backoff
         IN  /\ unschedulablePods' = unschedulablePods \ moved
             /\ backoffQ' = backoffQ \cup backoff
             /\ activeQ' = activeQ \cup active
             /\ initialAttemptTimestamp' = FirstActive(active)
             /\ moveRequestCycle' = schedulingCycle
             /\ UNCHANGED <<inFlight, attempts, timestamp, unschedulablePlugins, podSchedulingCycle>>

(***************************************************************************)
(* The actions.  Each is enabled exactly when the Go operation succeeds;   *)
(* an operation that returns an error changes nothing and is not a step.   *)
(***************************************************************************)

\* R1.  Not enabled for a pod in activeQ or in flight (ErrAlreadyQueued).
Add(p) ==
    /\ p \notin activeQ \cup inFlight
    /\ activeQ' = activeQ \cup {p}
    /\ backoffQ' = backoffQ \ {p}
    /\ unschedulablePods' = unschedulablePods \ {p}
    /\ attempts' = [attempts EXCEPT ![p] = 0]
    /\ timestamp' = [timestamp EXCEPT ![p] = now]
    /\ initialAttemptTimestamp' = [initialAttemptTimestamp EXCEPT ![p] = now]
    /\ unschedulablePlugins' = [unschedulablePlugins EXCEPT ![p] = {}]
    /\ UNCHANGED <<inFlight, podSchedulingCycle, now, schedulingCycle, moveRequestCycle, lostWakeUp, extVars>>

\* R2, choosing any maximal pod.  podSchedulingCycle is the cycle Pop
\* returns, which the scheduler keeps to hand back to R3.  Not enabled once
\* the queue is closed (R13: ErrClosed), unless Mutation = "PopAfterClose".
Pop(p) ==
    /\ schedulingCycle < MaxCycle
    /\ ~closed \/ Mutation = "PopAfterClose"
    /\ p \in PopCandidates
    /\ activeQ' = activeQ \ {p}
    /\ inFlight' = inFlight \cup {p}
    /\ attempts' = [attempts EXCEPT ![p] = @ + 1]
    /\ unschedulablePlugins' = [unschedulablePlugins EXCEPT ![p] = {}]
    /\ schedulingCycle' = schedulingCycle + 1
    /\ podSchedulingCycle' = [podSchedulingCycle EXCEPT ![p] = schedulingCycle + 1]
    /\ UNCHANGED <<backoffQ, unschedulablePods, timestamp, initialAttemptTimestamp,
                   now, moveRequestCycle, lostWakeUp, closed, updateSkippedBackoff>>
    /\ poppedAfterClose' = (poppedAfterClose \/ closed)

\* The ghost of I3, written from the outcome alone: an in-flight pod that
\* lands in unschedulablePods although a move request happened during or
\* after its cycle, or although no plugin rejected it.
LandsWithoutShortcut ==
    \E p \in inFlight :
        /\ p \in unschedulablePods'
        /\ \/ moveRequestCycle >= podSchedulingCycle[p]
           \/ unschedulablePlugins'[p] = {}

\* R3, as the scheduler uses it: a pod in flight failed in its own cycle,
\* rejected by the plugins of `rejectors`.  Shortcut = FALSE removes the
\* moveRequestCycle shortcut (NoShortcut.cfg).
AddUnschedulableIfNotPresent(p, rejectors) ==
    /\ p \in inFlight
    /\ LET shortcut == Shortcut /\ moveRequestCycle >= podSchedulingCycle[p]
       IN  IF shortcut \/ rejectors = {}
           THEN /\ backoffQ' = backoffQ \cup {p}
                /\ UNCHANGED unschedulablePods
           ELSE /\ unschedulablePods' = unschedulablePods \cup {p}
                /\ UNCHANGED backoffQ
    /\ inFlight' = inFlight \ {p}
    /\ timestamp' = [timestamp EXCEPT ![p] = now]
    /\ unschedulablePlugins' = [unschedulablePlugins EXCEPT ![p] = rejectors]
    /\ podSchedulingCycle' = [podSchedulingCycle EXCEPT ![p] = 0]
    /\ lostWakeUp' = (lostWakeUp \/ LandsWithoutShortcut)
    /\ UNCHANGED <<activeQ, attempts, initialAttemptTimestamp, now, schedulingCycle, moveRequestCycle, extVars>>

\* Forget everything about a pod that leaves the queue, so that a state is
\* determined by what the queue holds (as a Go snapshot is).
Forget(p) ==
    /\ attempts' = [attempts EXCEPT ![p] = 0]
    /\ timestamp' = [timestamp EXCEPT ![p] = 0]
    /\ initialAttemptTimestamp' = [initialAttemptTimestamp EXCEPT ![p] = NoTime]
    /\ unschedulablePlugins' = [unschedulablePlugins EXCEPT ![p] = {}]
    /\ podSchedulingCycle' = [podSchedulingCycle EXCEPT ![p] = 0]

\* R12.
Done(p) ==
    /\ p \in inFlight
    /\ inFlight' = inFlight \ {p}
    /\ Forget(p)
    /\ UNCHANGED <<activeQ, backoffQ, unschedulablePods, now, schedulingCycle, moveRequestCycle, lostWakeUp, extVars>>

\* R10.
Delete(p) ==
    /\ p \in Held
    /\ activeQ' = activeQ \ {p}
    /\ backoffQ' = backoffQ \ {p}
    /\ unschedulablePods' = unschedulablePods \ {p}
    /\ inFlight' = inFlight \ {p}
    /\ Forget(p)
    /\ UNCHANGED <<now, schedulingCycle, moveRequestCycle, lostWakeUp, extVars>>

\* R8 for one pod, including a pod not held: it advances moveRequestCycle.
Activate(p) ==
    IF p \in unschedulablePods \cup backoffQ
    THEN /\ activeQ' = activeQ \cup {p}
         /\ backoffQ' = backoffQ \ {p}
         /\ unschedulablePods' = unschedulablePods \ {p}
         /\ initialAttemptTimestamp' = FirstActive({p})
         /\ UNCHANGED <<inFlight, attempts, timestamp, unschedulablePlugins, podSchedulingCycle,
                        now, schedulingCycle, moveRequestCycle, lostWakeUp, extVars>>
    ELSE /\ moveRequestCycle' = schedulingCycle
         /\ UNCHANGED <<queueVars, podVars, now, schedulingCycle, lostWakeUp, extVars>>

\* R4 with no preCheck.
MoveAllToActiveOrBackoffQueue(e) ==
    /\ MovePods(unschedulablePods, e)
    /\ UNCHANGED <<now, schedulingCycle, lostWakeUp, extVars>>

\* R5.
FlushBackoffQCompleted ==
    LET done == {p \in backoffQ : ~IsBackingOff(p)}
    IN  /\ backoffQ' = backoffQ \ done
        /\ activeQ' = activeQ \cup done
        /\ initialAttemptTimestamp' = FirstActive(done)
        /\ UNCHANGED <<unschedulablePods, inFlight, attempts, timestamp, unschedulablePlugins,
                       podSchedulingCycle, now, schedulingCycle, moveRequestCycle, lostWakeUp, extVars>>

\* R6, with the wildcard for UnschedulableTimeout.
FlushUnschedulablePodsLeftover ==
    LET leftover == {p \in unschedulablePods : now - timestamp[p] > MaxInUnschedulable}
    IN  /\ IF leftover = {}
           THEN UNCHANGED <<queueVars, podVars, moveRequestCycle>>
           ELSE MovePods(leftover, Wildcard)
        /\ UNCHANGED <<now, schedulingCycle, lostWakeUp, extVars>>

\* R13: Pop is refused from now on (ErrClosed); every other operation keeps
\* working on the state.  Idempotent.  In Next only if listed in Extensions.
Close ==
    /\ "Close" \in Extensions
    /\ closed' = TRUE
    /\ UNCHANGED <<queueVars, podVars, now, schedulingCycle, moveRequestCycle, lostWakeUp,
                   poppedAfterClose, updateSkippedBackoff>>

(***************************************************************************)
(* R9.  The pod object is abstract; what an Update changes is its kind:    *)
(*   "status"  only ResourceVersion or Status (spec.IsPodUpdated is false), *)
(*   "spec"    something else, e.g. a label (IsPodUpdated is true),        *)
(*   "uid"     a new object under the same key (deleted and created again). *)
(* Priorities do not change, so an update in place changes no state here.  *)
(***************************************************************************)
UpdateKinds == {"status", "spec", "uid"}

\* The ghost of I2 for Update: a pod leaves unschedulablePods for activeQ
\* while still backing off.
UpdateSkipsBackoff(p) == p \in unschedulablePods /\ p \in activeQ' /\ IsBackingOff(p)

\* In Next only if listed in Extensions.
Update(p, kind) ==
  /\ "Update" \in Extensions
  /\ \/ \* not held: added as by Add (R1)
        /\ p \notin Held
        /\ Add(p)
     \/ \* activeQ, backoffQ: replaced in place
        /\ p \in activeQ \cup backoffQ
        /\ UNCHANGED vars
     \/ \* unschedulablePods: requeued if the update may make it schedulable;
        \* not a move request (moveRequestCycle is unchanged)
        /\ p \in unschedulablePods
        /\ IF kind = "status" THEN UNCHANGED vars
           ELSE LET toB == IsBackingOff(p) /\ Mutation # "UpdateIgnoresBackoff"
                IN  /\ unschedulablePods' = unschedulablePods \ {p}
                    /\ backoffQ' = IF toB THEN backoffQ \cup {p} ELSE backoffQ
                    /\ activeQ' = IF toB THEN activeQ ELSE activeQ \cup {p}
                    /\ initialAttemptTimestamp' = IF toB THEN initialAttemptTimestamp ELSE FirstActive({p})
                    /\ updateSkippedBackoff' = (updateSkippedBackoff \/ UpdateSkipsBackoff(p))
                    /\ UNCHANGED <<inFlight, attempts, timestamp, unschedulablePlugins, podSchedulingCycle,
                                   now, schedulingCycle, moveRequestCycle, lostWakeUp, closed, poppedAfterClose>>
     \/ \* in flight, same object: replaced in place.  Under a new UID the
        \* attempt ends as by Delete (R10) and the new object is added (R1).
        \* Mutation "UpdateQueuesInFlight" is upstream v1.33's classic mode,
        \* which queues a second copy in activeQ.
        /\ p \in inFlight
        /\ IF kind = "uid"
           THEN /\ inFlight' = inFlight \ {p}
                /\ activeQ' = activeQ \cup {p}
                /\ attempts' = [attempts EXCEPT ![p] = 0]
                /\ timestamp' = [timestamp EXCEPT ![p] = now]
                /\ initialAttemptTimestamp' = [initialAttemptTimestamp EXCEPT ![p] = now]
                /\ unschedulablePlugins' = [unschedulablePlugins EXCEPT ![p] = {}]
                /\ podSchedulingCycle' = [podSchedulingCycle EXCEPT ![p] = 0]
                /\ UNCHANGED <<backoffQ, unschedulablePods, now, schedulingCycle, moveRequestCycle,
                               lostWakeUp, extVars>>
           ELSE IF Mutation = "UpdateQueuesInFlight"
           THEN /\ activeQ' = activeQ \cup {p}
                /\ UNCHANGED <<backoffQ, unschedulablePods, inFlight, podVars, now, schedulingCycle,
                               moveRequestCycle, lostWakeUp, extVars>>
           ELSE UNCHANGED vars

\* The clock advances one tick.
Tick ==
    /\ now < MaxTime
    /\ now' = now + 1
    /\ UNCHANGED <<queueVars, podVars, schedulingCycle, moveRequestCycle, lostWakeUp, extVars>>

Init ==
    /\ activeQ = {} /\ backoffQ = {} /\ unschedulablePods = {} /\ inFlight = {}
    /\ attempts = [p \in Pods |-> 0]
    /\ timestamp = [p \in Pods |-> 0]
    /\ initialAttemptTimestamp = [p \in Pods |-> NoTime]
    /\ unschedulablePlugins = [p \in Pods |-> {}]
    /\ podSchedulingCycle = [p \in Pods |-> 0]
    /\ now = 0
    /\ schedulingCycle = 0
    /\ moveRequestCycle = -1
    /\ lostWakeUp = FALSE
    /\ closed = FALSE
    /\ poppedAfterClose = FALSE
    /\ updateSkippedBackoff = FALSE

\* The action alphabet, shared with the Go exploration in agreement_test.go;
\* Close and Update are enabled only if the configuration lists them in
\* Extensions.
Next ==
    \/ \E p \in Pods : Add(p)
    \/ \E p \in Pods : Pop(p)
    \/ \E p \in Pods, r \in RejectorSets : AddUnschedulableIfNotPresent(p, r)
    \/ \E p \in Pods : Done(p)
    \/ \E p \in Pods : Delete(p)
    \/ \E p \in Pods : Activate(p)
    \/ \E e \in Events \cup {Wildcard} : MoveAllToActiveOrBackoffQueue(e)
    \/ FlushBackoffQCompleted
    \/ FlushUnschedulablePodsLeftover
    \/ Tick
    \/ Close
    \/ \E p \in Pods, k \in UpdateKinds : Update(p, k)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(***************************************************************************)
(* Invariants                                                              *)
(***************************************************************************)

Time == 0..MaxTime

TypeOK ==
    /\ activeQ \subseteq Pods /\ backoffQ \subseteq Pods
    /\ unschedulablePods \subseteq Pods /\ inFlight \subseteq Pods
    /\ attempts \in [Pods -> 0..MaxCycle]
    /\ timestamp \in [Pods -> Time]
    /\ initialAttemptTimestamp \in [Pods -> Time \cup {NoTime}]
    /\ unschedulablePlugins \in [Pods -> SUBSET Plugins]
    /\ podSchedulingCycle \in [Pods -> 0..MaxCycle]
    /\ now \in Time
    /\ schedulingCycle \in 0..MaxCycle
    /\ moveRequestCycle \in -1..MaxCycle
    /\ lostWakeUp \in BOOLEAN
    /\ closed \in BOOLEAN /\ poppedAfterClose \in BOOLEAN /\ updateSkippedBackoff \in BOOLEAN
    \* A pod the queue does not hold leaves no trace (Forget).
    /\ \A p \in Pods \ Held :
          /\ attempts[p] = 0 /\ timestamp[p] = 0 /\ initialAttemptTimestamp[p] = NoTime
          /\ unschedulablePlugins[p] = {} /\ podSchedulingCycle[p] = 0
    \* Only a pod in flight has a scheduling cycle of its own.
    /\ \A p \in Pods : podSchedulingCycle[p] # 0 <=> p \in inFlight
    \* Every held pod has been in activeQ; Timestamps are never in the future.
    /\ \A p \in Held : initialAttemptTimestamp[p] # NoTime /\ timestamp[p] <= now

\* I1: every pod the queue holds is in exactly one place.
I1 ==
    /\ activeQ \cap backoffQ = {}
    /\ activeQ \cap unschedulablePods = {}
    /\ activeQ \cap inFlight = {}
    /\ backoffQ \cap unschedulablePods = {}
    /\ backoffQ \cap inFlight = {}
    /\ unschedulablePods \cap inFlight = {}

\* I2, state part: the backoff never decreases with attempts, never exceeds
\* the max and is 0 only for a pod never attempted; a pod waits in backoffQ
\* or unschedulablePods only after an attempt.  The step part is I2Step.
I2 ==
    /\ \A a \in 0..MaxCycle :
          /\ BackoffDuration(a) <= BackoffDuration(a + 1)
          /\ BackoffDuration(a + 1) <= MaxBackoff
          /\ BackoffDuration(a) = 0 <=> a = 0
    /\ \A p \in backoffQ \cup unschedulablePods : attempts[p] >= 1

\* I3: no in-flight pod ever landed in unschedulablePods when the
\* moveRequestCycle shortcut (or the lack of rejectors) should have sent it to
\* backoffQ.  The ghost records the step property I3Step, so that TLC can
\* report a violation as an invariant.
I3 == ~lostWakeUp

\* I4, state part: the places partition the held pods (with I1), and every
\* place holds only pods.  The step part is I4Step.
I4 == Held \subseteq Pods /\ Cardinality(Held) =
        Cardinality(activeQ) + Cardinality(backoffQ) + Cardinality(unschedulablePods) + Cardinality(inFlight)

\* I6, state part.
I6 ==
    /\ 0 <= schedulingCycle
    /\ -1 <= moveRequestCycle /\ moveRequestCycle <= schedulingCycle
    /\ \A p \in inFlight : 1 <= podSchedulingCycle[p] /\ podSchedulingCycle[p] <= schedulingCycle

\* R13: no Pop succeeds once the queue is closed.
NoPopAfterClose == ~poppedAfterClose

\* I2 for R9: no Update sends a pod from unschedulablePods to activeQ while
\* it is still backing off (it goes to backoffQ).
I2Update == ~updateSkippedBackoff

Invariants == TypeOK /\ I1 /\ I2 /\ I3 /\ I4 /\ I6 /\ NoPopAfterClose /\ I2Update

-----------------------------------------------------------------------------
(***************************************************************************)
(* Step properties, checked as [][P]_vars.  They hold of every step, not   *)
(* only of the actions above, so they are stated over the change alone.    *)
(***************************************************************************)

\* I2: a pod's expiry never moves earlier while it waits in backoffQ; the
\* backoffQ flush releases exactly the pods whose backoff completed, into
\* activeQ; an event never moves a pod still backing off to activeQ.
I2Step ==
    /\ \A p \in backoffQ \cap backoffQ' :
          ExpiryOf(attempts'[p], timestamp'[p]) >= BackoffExpiry(p)
    /\ FlushBackoffQCompleted =>
          /\ \A p \in backoffQ \ backoffQ' : p \in activeQ' /\ ~IsBackingOff(p)
          /\ \A p \in backoffQ' : BackingOff(attempts'[p], timestamp'[p], now')
    /\ (\/ \E e \in Events \cup {Wildcard} : MoveAllToActiveOrBackoffQueue(e)
        \/ FlushUnschedulablePodsLeftover
        \/ \E p \in Pods, k \in UpdateKinds : Update(p, k)) =>
          \A p \in unschedulablePods \cap activeQ' : ~BackingOff(attempts'[p], timestamp'[p], now')

\* I3 as a step: the outcome LandsWithoutShortcut never happens.
I3Step == ~LandsWithoutShortcut

\* I4: at most one pod enters the queue per step, as a fresh entry in
\* activeQ; at most one leaves, and not in the same step; a pod goes in
\* flight only from activeQ, one per step.
I4Step ==
    /\ Cardinality(Held' \ Held) <= 1
    /\ Cardinality(Held \ Held') <= 1
    /\ Held' \ Held = {} \/ Held \ Held' = {}
    /\ \A p \in Held' \ Held : p \in activeQ' /\ attempts'[p] = 0
    /\ inFlight' \ inFlight \subseteq activeQ
    /\ Cardinality(inFlight' \ inFlight) <= 1

\* I5: Pop takes a maximal pod of activeQ.
I5Step == \A p \in inFlight' \ inFlight : p \in PopCandidates

\* I6: schedulingCycle grows by exactly one per Pop and by nothing otherwise;
\* moveRequestCycle never decreases.
I6Step ==
    /\ schedulingCycle' = schedulingCycle + Cardinality(inFlight' \ inFlight)
    /\ moveRequestCycle' >= moveRequestCycle

\* R13: a closed queue stays closed.
CloseStep == closed => closed'

StepProperties ==
    [][I2Step /\ I3Step /\ I4Step /\ I5Step /\ I6Step /\ CloseStep]_vars

=============================================================================
