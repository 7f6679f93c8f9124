----------------------- MODULE SchedulingQueueHints -----------------------
(***************************************************************************)
(* The kube-scheduler scheduling queue, queueing-hints profile: upstream   *)
(* v1.37.2 with its default feature gates (spec.ProfileHints).  The        *)
(* contract is the doc comment of spec.Queue with the hints rules of       *)
(* spec/hints.go: rule ids R1h..R17 and invariant ids I2h..I5h, I7 are its *)
(* ids, and names are those of the Go code (spec/, model/hints.go).  The   *)
(* comments here add only what is this module's own: bounds, ticks, the    *)
(* abstraction of events and hints, when an action is enabled, and the     *)
(* ghosts of "no lost event".  tla/agreement_test.go checks that this      *)
(* module and model/ (Profile: spec.ProfileHints) have the same reachable  *)
(* state graph for the bound of GraphHints.cfg.                            *)
(*                                                                         *)
(* It is a module of its own, not an extension of SchedulingQueue.tla: the *)
(* two share the four places and little else.  The backoff is driven by    *)
(* other counters and aligned to ordering windows, Pop reads backoffQ,     *)
(* there is no moveRequestCycle, every entry into activeQ or backoffQ      *)
(* passes PreEnqueue, and a failure replays the in-flight list instead of  *)
(* comparing cycles: every action but Tick would be parameterised.         *)
(*                                                                         *)
(* Abstractions.  Events are names; "plugin pl registered event e" is set  *)
(* membership (Registered), and a registration's queueing hint is a fixed  *)
(* answer chosen by the configuration: (pl, e) \in QueueHint means the     *)
(* hint answers Queue, any other registration answers QueueSkip.  One      *)
(* PreEnqueue plugin, Gate, refuses exactly the pods whose object carries  *)
(* a scheduling gate (schedulingGate); Update flips that label.  Time is   *)
(* in ticks, Window ticks to an ordering window (one second).              *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Pods,               \* pod keys
    Priority,           \* [Pods -> Int]: higher is popped first
    Plugins,            \* the plugins that may reject a pod in a scheduling attempt
    Gate,               \* the PreEnqueue plugin (not in Plugins)
    GatedPods,          \* the pods whose object carries a scheduling gate when created
    Events,             \* cluster events of MoveAllToActiveOrBackoffQueue; wildcards are not among them
    Wildcard,           \* the wildcard event every pod is interested in
    Registered,         \* [Plugins \cup {Gate} -> SUBSET (Events \cup {UpdatePodLabel})]
    QueueHint,          \* the registrations (plugin, event) whose hint answers Queue
    Failures,           \* the outcomes a failure may report: [unschedulable |-> SUBSET Plugins, pending |-> SUBSET Plugins]
    InitialBackoff,     \* podInitialBackoffDuration, in ticks
    MaxBackoff,         \* podMaxBackoffDuration, in ticks; 0 switches backoff off
    Window,             \* ticks per backoff ordering window (one second)
    MaxInUnschedulable, \* podMaxInUnschedulablePodsDuration, in ticks
    MaxTime,            \* the clock stops here
    MaxCycle,           \* Pop stops once schedulingCycle reaches this
    MaxRecords,         \* an event that would be recorded as the list's (MaxRecords+1)th
                        \* record does not happen
    RecordWhileInFlight, \* TRUE; FALSE: events are not recorded while pods are in flight
                         \* (a negative configuration, which must break I3h)
    TrimFrontOnly,       \* TRUE; FALSE: Done also drops the events recorded after the pod's
                         \* own marker, which pods popped earlier still need
                         \* (a negative configuration, which must break I3h)
    PreQueueing,        \* Config.PreQueueing (v1.38's default): move requests ask the
                        \* pre-queueing hints (R20-R22)
    PreQueueNamed,      \* the registrations with a pre-queueing hint and the pods it names:
                        \* a set of <<plugin, event, SUBSET Pods>>; any other registration
                        \* answers all pods
    Nodes,              \* the nodes pods may be nominated to (R18)
    Extensions,         \* the optional operations in Next:
                        \* SUBSET {"Close", "AssignedPod", "Nominator"}
    Mutation            \* "none"; else one deliberate bug of a negative configuration:
                        \* "PopAfterClose" (breaks NoPopAfterClose),
                        \* "AssignedNotRecorded" (breaks I3h),
                        \* "NominateKeepsOld" (breaks NominatedOnce),
                        \* "NarrowIgnoresAllPods" (breaks I8)

\* The event an Update of a pod raises for the pod itself when its labels
\* changed (spec.PodUpdateEvents: TargetPod/UpdatePodLabel), and the
\* wildcards the queue raises itself (R6h, R8h).
UpdatePodLabel == "TargetPodUpdatePodLabel"
UnschedulableTimeout == "UnschedulableTimeout"
ForceActivate == "ForceActivate"

\* The events of AssignedPodAdded and AssignedPodUpdated (R11h).
AssignedPodAdd == "AssignedPodAdd"
AssignedPodUpdate == "AssignedPodUpdate"
AssignedPodEvents == {AssignedPodAdd, AssignedPodUpdate}

AllPlugins == Plugins \cup {Gate}
NonWildcards == Events \cup {UpdatePodLabel} \cup AssignedPodEvents
Wildcards == {Wildcard, UnschedulableTimeout, ForceActivate}

NoPod == ""     \* no pod: an event carries no pod object, or an entry is no marker
NoPlugin == ""  \* no gating plugin: the pod is not gated
NoTime == -1    \* Go's zero time
NoNode == ""    \* AddNominatedPod to no node: the nomination is dropped

ASSUME /\ Priority \in [Pods -> Int]
       /\ NoPod \notin Pods
       /\ Gate \notin Plugins /\ Gate # NoPlugin
       /\ GatedPods \subseteq Pods
       /\ Wildcards \cap NonWildcards = {}
       /\ Registered \in [AllPlugins -> SUBSET NonWildcards]
       /\ QueueHint \subseteq {<<pl, e>> : pl \in AllPlugins, e \in NonWildcards}
       /\ \A h \in QueueHint : h[2] \in Registered[h[1]]
       /\ Failures \subseteq [unschedulable : SUBSET Plugins, pending : SUBSET Plugins]
       /\ InitialBackoff \in Nat \ {0} /\ MaxBackoff \in Nat
       /\ MaxBackoff = 0 \/ MaxBackoff >= InitialBackoff
       /\ Window \in Nat \ {0}
       /\ MaxInUnschedulable \in Nat \ {0}
       /\ MaxTime \in Nat /\ MaxCycle \in Nat /\ MaxRecords \in Nat
       /\ RecordWhileInFlight \in BOOLEAN /\ TrimFrontOnly \in BOOLEAN
       /\ NoNode \notin Nodes
       /\ Extensions \subseteq {"Close", "AssignedPod", "Nominator"}
       /\ PreQueueing \in BOOLEAN
       /\ PreQueueNamed \subseteq {<<pl, e, S>> : pl \in AllPlugins, e \in NonWildcards, S \in SUBSET Pods}
       /\ \A t \in PreQueueNamed : t[2] \in Registered[t[1]]
       /\ Mutation \in {"none", "PopAfterClose", "AssignedNotRecorded", "NominateKeepsOld", "NarrowIgnoresAllPods"}

VARIABLES
    activeQ,                  \* pods waiting to be popped
    backoffQ,                 \* pods waiting for their backoff to complete
    unschedulablePods,        \* pods waiting for an event, the leftover flush, or PreEnqueue
    inFlight,                 \* pods popped and not yet handed back or Done
    attempts,                 \* [Pods -> Nat]: QueuedPodInfo.Attempts
    timestamp,                \* [Pods -> time]: QueuedPodInfo.Timestamp
    initialAttemptTimestamp,  \* [Pods -> time \cup {NoTime}]
    unschedulablePlugins,     \* [Pods -> SUBSET AllPlugins]
    pendingPlugins,           \* [Pods -> SUBSET Plugins]: PendingPlugins
    unschedulableCount,       \* [Pods -> Nat]: UnschedulableCount
    consecutiveErrorsCount,   \* [Pods -> Nat]: ConsecutiveErrorsCount
    gatingPlugin,             \* [Pods -> {NoPlugin, Gate}]: GatingPlugin
    flushTimestamp,           \* [Pods -> time \cup {NoTime}]: FlushTimestamp
    schedulingGate,           \* [Pods -> BOOLEAN]: the pod object carries a scheduling gate
    inFlightEvents,           \* the in-flight list: markers and event records (R15)
    now,                      \* the clock
    schedulingCycle,          \* number of Pops so far
    received,                 \* ghost: [Pods -> set of events] received since the pod's Pop
    lostEvent,                \* ghost for I3h: a failed pod once landed in unschedulablePods
                              \* although an event received while it was in flight requeues it
    strandedByNarrowing,      \* ghost for I8: a move request once left parked a pod that its
                              \* pre-queueing hints let through and a hint requeues, or moved a
                              \* pod no hint requeues
    closed,                   \* Close happened (R13h): Snapshot.Closed
    nominated,                \* [Nodes -> Seq(Pods)]: the nominator (R18), in nomination order
    poppedAfterClose          \* ghost: a Pop succeeded after Close

queueVars == <<activeQ, backoffQ, unschedulablePods, inFlight>>
podVars == <<attempts, timestamp, initialAttemptTimestamp, unschedulablePlugins, pendingPlugins,
             unschedulableCount, consecutiveErrorsCount, gatingPlugin, flushTimestamp, schedulingGate>>
ghostVars == <<received, lostEvent, strandedByNarrowing>>
\* The variables of Close and the nominator, which most actions leave alone.
extVars == <<closed, nominated, poppedAfterClose>>
vars == <<queueVars, podVars, inFlightEvents, now, schedulingCycle, ghostVars, extVars>>

\* Every pod the queue holds.
Held == activeQ \cup backoffQ \cup unschedulablePods \cup inFlight

(***************************************************************************)
(* The in-flight list (R15).  An entry is a record: a marker names the pod *)
(* in flight (pod # NoPod); an event record names the event and, for a     *)
(* wildcard aimed at one pod (ForceActivate), that pod as target.          *)
(***************************************************************************)
Marker(p) == [pod |-> p, event |-> "", target |-> NoPod]
Occurrence(e, t) == [pod |-> NoPod, event |-> e, target |-> t]
IsMarker(x) == x.pod # NoPod

Indices(l) == 1..Len(l)
MarkerIndex(l, p) == CHOOSE i \in Indices(l) : l[i].pod = p
HasMarker(l, p) == \E i \in Indices(l) : l[i].pod = p

\* The event records after p's marker: what p replays when it fails.
RecordsAfter(l, p) ==
    IF HasMarker(l, p)
    THEN {l[j] : j \in {j \in Indices(l) : j > MarkerIndex(l, p) /\ ~IsMarker(l[j])}}
    ELSE {}

\* The list from its first marker on (empty when it has none).
DropFront(l) ==
    IF \E i \in Indices(l) : IsMarker(l[i])
    THEN LET first == CHOOSE i \in Indices(l) : IsMarker(l[i]) /\ \A j \in 1..(i - 1) : ~IsMarker(l[j])
         IN  SubSeq(l, first, Len(l))
    ELSE << >>

\* R12h: p's marker leaves the list, then the records in front of the first
\* remaining marker.  TrimFrontOnly = FALSE also drops the records between
\* p's marker and the next marker: the negative configuration NoTrimOwn.cfg.
TrimInFlight(l, p) ==
    IF ~HasMarker(l, p) THEN l
    ELSE LET i == MarkerIndex(l, p)
             next == {j \in Indices(l) : j > i /\ IsMarker(l[j])}
             j == IF next = {} THEN Len(l) + 1 ELSE CHOOSE j \in next : \A k \in next : j <= k
             kept == IF TrimFrontOnly
                     THEN SubSeq(l, 1, i - 1) \o SubSeq(l, i + 1, Len(l))
                     ELSE SubSeq(l, 1, i - 1) \o SubSeq(l, j, Len(l))
         IN  DropFront(kept)

\* The number of event records in a list.
NumRecords(l) == Cardinality({i \in Indices(l) : ~IsMarker(l[i])})

\* The bound on the list: an event that the queue would record happens only
\* while the list holds fewer than MaxRecords records.  Events nobody
\* records (nothing in flight, or of no interest) are not bounded.
CanRecord == inFlight = {} \/ NumRecords(inFlightEvents) < MaxRecords

\* R15.3: an event is recorded only while some pod is in flight.
\* RecordWhileInFlight = FALSE drops it: the negative configuration
\* NoRecord.cfg.  The ghost `received` keeps what really happened.
RecordIf(occ, keep) ==
    /\ inFlightEvents' = IF inFlight # {} /\ RecordWhileInFlight /\ keep
                         THEN Append(inFlightEvents, occ) ELSE inFlightEvents
    /\ received' = [p \in Pods |-> IF p \in inFlight THEN received[p] \cup {occ} ELSE received[p]]
Record(occ) == RecordIf(occ, TRUE)

(***************************************************************************)
(* R7h, in ticks: the count, the duration, the expiry aligned to its       *)
(* ordering window, and "still backing off": the expiry is not before the  *)
(* start of the current window.  A duration of 0 (count 0, or MaxBackoff = *)
(* 0) is no backoff at all.                                                *)
(***************************************************************************)
CountOf(ue, ce) == IF ce > 0 THEN ce ELSE ue
Duration(c) ==
    IF MaxBackoff = 0 \/ c = 0 THEN 0
    ELSE LET d == InitialBackoff * 2^(c - 1)
         IN  IF d > MaxBackoff THEN MaxBackoff ELSE d
Align(t) == (t \div Window) * Window
\* The expiry; NoTime (Go's zero time, before every instant) without backoff.
ExpiryOf(c, ts) == IF Duration(c) = 0 THEN NoTime ELSE Align(ts + Duration(c))
BackingOff(c, ts, t) == Duration(c) > 0 /\ ExpiryOf(c, ts) >= Align(t)

BackoffCount(p) == CountOf(unschedulableCount[p], consecutiveErrorsCount[p])
BackoffExpiry(p) == ExpiryOf(BackoffCount(p), timestamp[p])
IsBackingOff(p) == BackingOff(BackoffCount(p), timestamp[p], now)

Rejectors(p) == unschedulablePlugins[p] \cup pendingPlugins[p]

(***************************************************************************)
(* R2h: the activeQ order (priority, then Timestamp), and, activeQ being   *)
(* empty, the backoffQ order among pods some plugin rejected: earlier      *)
(* expiry window, then the activeQ order.  Ties are free choices.          *)
(***************************************************************************)
Less(p, q) == \/ Priority[p] > Priority[q]
              \/ Priority[p] = Priority[q] /\ timestamp[p] < timestamp[q]

BackoffBefore(p, q) == \/ BackoffExpiry(p) < BackoffExpiry(q)
                       \/ BackoffExpiry(p) = BackoffExpiry(q) /\ Less(p, q)

BackoffPopCandidates ==
    LET eligible == {p \in backoffQ : Rejectors(p) # {}}
    IN  {p \in eligible : ~\E q \in eligible : BackoffBefore(q, p)}

PopCandidates ==
    IF activeQ # {} THEN {p \in activeQ : ~\E q \in activeQ : Less(q, p)}
    ELSE BackoffPopCandidates

(***************************************************************************)
(* R16: the strategy of one pod for one event, from its rejectors.         *)
(* Strategies are numbers so that the most urgent is the maximum.          *)
(***************************************************************************)
Skip == 0
AfterBackoff == 1
Immediately == 2

IsWildcard(e) == e \in Wildcards
Queues(pl, e) == e \in Registered[pl] /\ <<pl, e>> \in QueueHint
IsEventOfInterest(e) == IsWildcard(e) \/ \E pl \in AllPlugins : e \in Registered[pl]

\* For a pod p with unschedulable plugins up and pending plugins pend,
\* asking only the rejectors Ask allows (R22; R16 asks them all).
StrategyAsking(p, up, pend, occ, Ask(_)) ==
    IF up \cup pend = {} THEN AfterBackoff
    ELSE IF IsWildcard(occ.event)
         THEN IF occ.target # NoPod /\ occ.target # p THEN Skip ELSE AfterBackoff
    ELSE IF \E pl \in pend : Ask(pl) /\ Queues(pl, occ.event) THEN Immediately
    ELSE IF \E pl \in up \cup pend : Ask(pl) /\ Queues(pl, occ.event) THEN AfterBackoff
    ELSE Skip

StrategyOf(p, up, pend, occ) == StrategyAsking(p, up, pend, occ, LAMBDA pl : TRUE)

PodStrategy(p, occ) == StrategyOf(p, unschedulablePlugins[p], pendingPlugins[p], occ)

\* R3h's replay: the most urgent strategy over a set of events.
ReplayOf(p, up, pend, occs) ==
    IF up \cup pend = {} THEN AfterBackoff
    ELSE LET s == {StrategyOf(p, up, pend, o) : o \in occs}
         IN  IF Immediately \in s THEN Immediately ELSE IF AfterBackoff \in s THEN AfterBackoff ELSE Skip

\* R4h's gated filter: a wildcard, or an event the gating plugin registered.
GatingEventMatches(pl, e) == IsWildcard(e) \/ e \in Registered[pl]

(***************************************************************************)
(* R20-R22, with PreQueueing: the pre-queueing hints of a move request.    *)
(* Every event of the spec but the wildcards carries an object (the spec   *)
(* has none to leave out), so every non-wildcard move request asks them.   *)
(* A plugin is narrowed when its registration of the event has a           *)
(* pre-queueing hint (in PreQueueNamed), to the pods it names; any other   *)
(* plugin that registered the event narrows nothing (no hint, all pods, an *)
(* error).  When every plugin that registered the event is narrowed, only  *)
(* the named pods are evaluated (R21); a narrowed plugin's hints are asked *)
(* only about the pods it named (R22).                                     *)
(***************************************************************************)
HasPreHint(pl, e) == \E t \in PreQueueNamed : t[1] = pl /\ t[2] = e
NamedBy(pl, e) == UNION {t[3] : t \in {u \in PreQueueNamed : u[1] = pl /\ u[2] = e}}
NarrowedPlugins(e) ==
    IF PreQueueing /\ ~IsWildcard(e)
    THEN {pl \in AllPlugins : e \in Registered[pl] /\ HasPreHint(pl, e)}
    ELSE {}
NarrowsAll(e) ==
    /\ PreQueueing /\ ~IsWildcard(e)
    /\ \A pl \in AllPlugins : e \in Registered[pl] => HasPreHint(pl, e)
Named(p, e) == \E pl \in NarrowedPlugins(e) : p \in NamedBy(pl, e)
Evaluates(p, e) == ~NarrowsAll(e) \/ Named(p, e)
Asks(pl, p, e) == pl \notin NarrowedPlugins(e) \/ p \in NamedBy(pl, e)

\* R4h's filters and R16 under R21 and R22: the strategy of a parked pod
\* for a move request; Skip for a gated pod the event cannot concern and
\* for a pod the request does not evaluate.
MoveStrategy(p, occ) ==
    IF gatingPlugin[p] # NoPlugin /\ ~GatingEventMatches(gatingPlugin[p], occ.event) THEN Skip
    ELSE IF ~Evaluates(p, occ.event) THEN Skip
    ELSE StrategyAsking(p, unschedulablePlugins[p], pendingPlugins[p], occ, LAMBDA pl : Asks(pl, p, occ.event))

\* I8's ghost for one move request: a pod left parked, not gated again,
\* whose MoveStrategy requeues it; or a pod moved that PodStrategy, without
\* pre-queueing hints, would leave parked.
Stranded(occ) ==
    \/ \E p \in unschedulablePods \cap unschedulablePods' :
           ~schedulingGate[p] /\ MoveStrategy(p, occ) # Skip
    \/ \E p \in unschedulablePods \ unschedulablePods' : PodStrategy(p, occ) = Skip

\* Entering activeQ sets a zero InitialAttemptTimestamp to now.
FirstActive(S) ==
    [p \in Pods |-> IF p \in S /\ initialAttemptTimestamp[p] = NoTime
                    THEN now ELSE initialAttemptTimestamp[p]]

(***************************************************************************)
(* Requeue the pods M of unschedulablePods, each with strategy st(p) #     *)
(* Skip (R4h.3c, R9h.4): backoffQ for AfterBackoff while backing off, else *)
(* activeQ; PreEnqueue first (R17): a refused pod stays in               *)
(* unschedulablePods, gated by Gate, which joins its unschedulable plugins. *)
(***************************************************************************)
Requeue(M, st(_)) ==
    LET refused == {p \in M : schedulingGate[p]}
        toB == {p \in M \ refused : st(p) = AfterBackoff /\ IsBackingOff(p)}
        toA == M \ (refused \cup toB)
    IN  /\ unschedulablePods' = (unschedulablePods \ M) \cup refused
        /\ backoffQ' = backoffQ \cup toB
        /\ activeQ' = activeQ \cup toA
        /\ initialAttemptTimestamp' = FirstActive(toA)
        /\ gatingPlugin' = [p \in Pods |-> IF p \in refused THEN Gate
                                           ELSE IF p \in M THEN NoPlugin ELSE gatingPlugin[p]]
        /\ unschedulablePlugins' = [p \in Pods |-> IF p \in refused THEN unschedulablePlugins[p] \cup {Gate}
                                                   ELSE unschedulablePlugins[p]]

\* R4h over S \subseteq unschedulablePods, for an event of interest: each pod
\* alone, a gated one only if the event may concern its gating plugin, and
\* with PreQueueing only the pods and rejectors the pre-queueing hints let
\* through (R21, R22).  Mutation "NarrowIgnoresAllPods" evaluates only the
\* named pods even when some plugin narrowed nothing.
MovePods(S, occ) ==
    LET mutated(p) == /\ Mutation = "NarrowIgnoresAllPods" /\ NarrowedPlugins(occ.event) # {}
                      /\ ~Named(p, occ.event)
        st(p) == IF mutated(p) THEN Skip ELSE MoveStrategy(p, occ)
    IN  Requeue({p \in S : st(p) # Skip}, st)

(***************************************************************************)
(* R18, the nominator: each node's nominated pods in nomination order.     *)
(* The pod objects carry no NominatedNodeName, so Add (a Noop nomination)  *)
(* drops a pod's nomination, and an Update of a queued pod keeps the       *)
(* queue's own nomination, moving the pod to the end of its node's list.   *)
(***************************************************************************)
IsNominated(p) == \E n \in Nodes : \E i \in 1..Len(nominated[n]) : nominated[n][i] = p
NominatedNode(p) == CHOOSE n \in Nodes : \E i \in 1..Len(nominated[n]) : nominated[n][i] = p
Unnominated(p) == [n \in Nodes |-> SelectSeq(nominated[n], LAMBDA q : q # p)]
\* AddNominatedPod: the pod's earlier nomination goes first (unless Mutation
\* = "NominateKeepsOld"), then it joins node n's list (NoNode: none).
Nominate(p, n) ==
    LET kept == IF Mutation = "NominateKeepsOld" THEN nominated ELSE Unnominated(p)
    IN  IF n = NoNode THEN kept ELSE [kept EXCEPT ![n] = Append(@, p)]

(***************************************************************************)
(* The actions.  Each is enabled exactly when the Go operation succeeds;   *)
(* an operation that returns an error changes nothing and is not a step.   *)
(***************************************************************************)

\* R1h.  Not enabled for a pod in activeQ or in flight (ErrAlreadyQueued).
\* A pod parked in backoffQ or unschedulablePods is replaced by a fresh
\* entry, which must pass PreEnqueue.
Add(p) ==
    /\ p \notin activeQ \cup inFlight
    /\ LET gated == p \in GatedPods
       IN  /\ activeQ' = IF gated THEN activeQ ELSE activeQ \cup {p}
           /\ unschedulablePods' = IF gated THEN unschedulablePods \cup {p} ELSE unschedulablePods \ {p}
           /\ backoffQ' = backoffQ \ {p}
           /\ initialAttemptTimestamp' = [initialAttemptTimestamp EXCEPT ![p] = IF gated THEN NoTime ELSE now]
           /\ unschedulablePlugins' = [unschedulablePlugins EXCEPT ![p] = IF gated THEN {Gate} ELSE {}]
           /\ gatingPlugin' = [gatingPlugin EXCEPT ![p] = IF gated THEN Gate ELSE NoPlugin]
           /\ schedulingGate' = [schedulingGate EXCEPT ![p] = gated]
    /\ attempts' = [attempts EXCEPT ![p] = 0]
    /\ timestamp' = [timestamp EXCEPT ![p] = now]
    /\ pendingPlugins' = [pendingPlugins EXCEPT ![p] = {}]
    /\ unschedulableCount' = [unschedulableCount EXCEPT ![p] = 0]
    /\ consecutiveErrorsCount' = [consecutiveErrorsCount EXCEPT ![p] = 0]
    /\ flushTimestamp' = [flushTimestamp EXCEPT ![p] = NoTime]
    /\ nominated' = Unnominated(p)
    /\ UNCHANGED <<inFlight, inFlightEvents, now, schedulingCycle, ghostVars, closed, poppedAfterClose>>

\* R2h, choosing any of PopCandidates: from activeQ, or from backoffQ when
\* activeQ is empty.  Nothing is cleared; the marker is appended.
Pop(p) ==
    /\ schedulingCycle < MaxCycle
    /\ ~closed \/ Mutation = "PopAfterClose"
    /\ p \in PopCandidates
    /\ activeQ' = activeQ \ {p}
    /\ backoffQ' = backoffQ \ {p}
    /\ inFlight' = inFlight \cup {p}
    /\ attempts' = [attempts EXCEPT ![p] = @ + 1]
    /\ schedulingCycle' = schedulingCycle + 1
    /\ inFlightEvents' = Append(inFlightEvents, Marker(p))
    /\ received' = [received EXCEPT ![p] = {}]
    /\ UNCHANGED <<unschedulablePods, timestamp, initialAttemptTimestamp, unschedulablePlugins,
                   pendingPlugins, unschedulableCount, consecutiveErrorsCount, gatingPlugin,
                   flushTimestamp, schedulingGate, now, lostEvent, strandedByNarrowing, closed, nominated>>
    /\ poppedAfterClose' = (poppedAfterClose \/ closed)

\* Forget everything about a pod that leaves the queue, so that a state is
\* determined by what the queue holds (as a Go snapshot is).
Forget(p) ==
    /\ attempts' = [attempts EXCEPT ![p] = 0]
    /\ timestamp' = [timestamp EXCEPT ![p] = 0]
    /\ initialAttemptTimestamp' = [initialAttemptTimestamp EXCEPT ![p] = NoTime]
    /\ unschedulablePlugins' = [unschedulablePlugins EXCEPT ![p] = {}]
    /\ pendingPlugins' = [pendingPlugins EXCEPT ![p] = {}]
    /\ unschedulableCount' = [unschedulableCount EXCEPT ![p] = 0]
    /\ consecutiveErrorsCount' = [consecutiveErrorsCount EXCEPT ![p] = 0]
    /\ gatingPlugin' = [gatingPlugin EXCEPT ![p] = NoPlugin]
    /\ flushTimestamp' = [flushTimestamp EXCEPT ![p] = NoTime]
    /\ schedulingGate' = [schedulingGate EXCEPT ![p] = FALSE]
    /\ received' = [received EXCEPT ![p] = {}]

\* The outcome I3h forbids, for a pod p that was in flight: it lands,
\* ungated, in unschedulablePods although it has no rejectors or an event it
\* received while in flight (the ghost, not the list) requeues it.
LandsDespiteEvent(p) ==
    /\ p \in unschedulablePods'
    /\ gatingPlugin'[p] = NoPlugin
    /\ \/ unschedulablePlugins'[p] \cup pendingPlugins'[p] = {}
       \/ \E occ \in received[p] : StrategyOf(p, unschedulablePlugins'[p], pendingPlugins'[p], occ) # Skip

\* R3h, as the scheduler uses it: a pod in flight failed, rejected as f says
\* (the scheduler hands back the new attempt's plugins).  The events after
\* its marker are replayed; then it leaves flight as in R12h.
AddUnschedulableIfNotPresent(p, f) ==
    /\ p \in inFlight
    /\ LET up == f.unschedulable
           pend == f.pending
           none == up \cup pend = {}
           ue == IF none THEN unschedulableCount[p] ELSE unschedulableCount[p] + 1
           ce == IF none THEN consecutiveErrorsCount[p] + 1 ELSE 0
           s == ReplayOf(p, up, pend, RecordsAfter(inFlightEvents, p))
           refused == s # Skip /\ schedulingGate[p]
           toB == s = AfterBackoff /\ ~refused /\ BackingOff(CountOf(ue, ce), now, now)
           toA == s # Skip /\ ~refused /\ ~toB
       IN  /\ unschedulablePods' = IF toA \/ toB THEN unschedulablePods ELSE unschedulablePods \cup {p}
           /\ backoffQ' = IF toB THEN backoffQ \cup {p} ELSE backoffQ
           /\ activeQ' = IF toA THEN activeQ \cup {p} ELSE activeQ
           /\ unschedulableCount' = [unschedulableCount EXCEPT ![p] = ue]
           /\ consecutiveErrorsCount' = [consecutiveErrorsCount EXCEPT ![p] = ce]
           /\ unschedulablePlugins' = [unschedulablePlugins EXCEPT ![p] = IF refused THEN up \cup {Gate} ELSE up]
           /\ pendingPlugins' = [pendingPlugins EXCEPT ![p] = pend]
           /\ gatingPlugin' = [gatingPlugin EXCEPT ![p] = IF refused THEN Gate ELSE NoPlugin]
           /\ initialAttemptTimestamp' = IF toA THEN FirstActive({p}) ELSE initialAttemptTimestamp
    /\ inFlight' = inFlight \ {p}
    /\ timestamp' = [timestamp EXCEPT ![p] = now]
    /\ flushTimestamp' = [flushTimestamp EXCEPT ![p] = NoTime]
    /\ inFlightEvents' = TrimInFlight(inFlightEvents, p)
    /\ received' = [received EXCEPT ![p] = {}]
    /\ lostEvent' = (lostEvent \/ LandsDespiteEvent(p))
    /\ UNCHANGED <<attempts, schedulingGate, now, schedulingCycle, strandedByNarrowing, extVars>>

\* R12h.
Done(p) ==
    /\ p \in inFlight
    /\ inFlight' = inFlight \ {p}
    /\ Forget(p)
    /\ inFlightEvents' = TrimInFlight(inFlightEvents, p)
    /\ UNCHANGED <<activeQ, backoffQ, unschedulablePods, now, schedulingCycle, lostEvent, strandedByNarrowing, extVars>>

\* R10h: a deleted in-flight pod also loses its marker, as in R12h.  The
\* pod's nomination goes too; a pod not held but nominated may be deleted.
Delete(p) ==
    /\ p \in Held \/ IsNominated(p)
    /\ activeQ' = activeQ \ {p}
    /\ backoffQ' = backoffQ \ {p}
    /\ unschedulablePods' = unschedulablePods \ {p}
    /\ inFlight' = inFlight \ {p}
    /\ Forget(p)
    /\ inFlightEvents' = TrimInFlight(inFlightEvents, p)
    /\ nominated' = Unnominated(p)
    /\ UNCHANGED <<now, schedulingCycle, lostEvent, strandedByNarrowing, closed, poppedAfterClose>>

\* R8h for one pod.  An in-flight pod gets a ForceActivate record aimed at
\* it; a pod in activeQ or not held: nothing.
Activate(p) ==
    \/ /\ p \in unschedulablePods
       /\ Requeue({p}, LAMBDA q : Immediately)
       /\ UNCHANGED <<inFlight, attempts, timestamp, pendingPlugins, unschedulableCount,
                      consecutiveErrorsCount, flushTimestamp, schedulingGate,
                      inFlightEvents, now, schedulingCycle, ghostVars, extVars>>
    \/ /\ p \in backoffQ
       /\ backoffQ' = backoffQ \ {p}
       /\ activeQ' = activeQ \cup {p}
       /\ initialAttemptTimestamp' = FirstActive({p})
       /\ UNCHANGED <<unschedulablePods, inFlight, attempts, timestamp, unschedulablePlugins,
                      pendingPlugins, unschedulableCount, consecutiveErrorsCount, gatingPlugin,
                      flushTimestamp, schedulingGate, inFlightEvents, now, schedulingCycle, ghostVars, extVars>>
    \/ /\ p \in inFlight
       /\ CanRecord
       /\ Record(Occurrence(ForceActivate, p))
       /\ UNCHANGED <<queueVars, podVars, now, schedulingCycle, lostEvent, strandedByNarrowing, extVars>>
    \/ /\ p \notin backoffQ \cup unschedulablePods \cup inFlight
       /\ UNCHANGED vars

\* R9h for a pod the queue holds: the pod object's scheduling gate label
\* flips, which raises the event UpdatePodLabel for the pod itself.
\* (Update of a pod not held is Add; it is left out of the alphabet.)
Update(p) ==
    /\ p \in Held
    /\ schedulingGate' = [schedulingGate EXCEPT ![p] = ~@]
    /\ \/ /\ p \in activeQ \cup backoffQ
          /\ UNCHANGED <<queueVars, inFlightEvents, received>>
          /\ UNCHANGED <<attempts, timestamp, initialAttemptTimestamp, unschedulablePlugins, pendingPlugins,
                         unschedulableCount, consecutiveErrorsCount, gatingPlugin, flushTimestamp>>
       \/ /\ p \in inFlight
          /\ CanRecord
          /\ Record(Occurrence(UpdatePodLabel, NoPod))
          /\ UNCHANGED <<queueVars>>
          /\ UNCHANGED <<attempts, timestamp, initialAttemptTimestamp, unschedulablePlugins, pendingPlugins,
                         unschedulableCount, consecutiveErrorsCount, gatingPlugin, flushTimestamp>>
       \/ /\ p \in unschedulablePods
          \* evaluated with the new object, no gated filter
          /\ LET s == PodStrategy(p, Occurrence(UpdatePodLabel, NoPod))
                 refused == s # Skip /\ ~schedulingGate[p]  \* the new object's gate
                 toB == s = AfterBackoff /\ ~refused /\ IsBackingOff(p)
                 toA == s # Skip /\ ~refused /\ ~toB
             IN  /\ unschedulablePods' = IF toA \/ toB THEN unschedulablePods \ {p} ELSE unschedulablePods
                 /\ backoffQ' = IF toB THEN backoffQ \cup {p} ELSE backoffQ
                 /\ activeQ' = IF toA THEN activeQ \cup {p} ELSE activeQ
                 /\ initialAttemptTimestamp' = IF toA THEN FirstActive({p}) ELSE initialAttemptTimestamp
                 /\ gatingPlugin' = [gatingPlugin EXCEPT ![p] = IF refused THEN Gate
                                                                ELSE IF s # Skip THEN NoPlugin ELSE @]
                 /\ unschedulablePlugins' = [unschedulablePlugins EXCEPT ![p] = IF refused THEN @ \cup {Gate} ELSE @]
          /\ UNCHANGED <<inFlight, inFlightEvents, received>>
          /\ UNCHANGED <<attempts, timestamp, pendingPlugins, unschedulableCount, consecutiveErrorsCount, flushTimestamp>>
    \* R18: the queue's nomination of a queued pod is kept (re-added last).
    /\ nominated' = IF p \notin inFlight /\ IsNominated(p) THEN Nominate(p, NominatedNode(p)) ELSE nominated
    /\ UNCHANGED <<now, schedulingCycle, lostEvent, strandedByNarrowing, closed, poppedAfterClose>>

\* R4h with no preCheck.  An event of no interest changes nothing and is
\* not recorded.
\* R4h over every pod in unschedulablePods; the event is recorded only if
\* `keep` (FALSE only in a negative configuration).
MoveRequest(e, keep) ==
    IF ~IsEventOfInterest(e) THEN UNCHANGED vars
    ELSE /\ CanRecord
         /\ MovePods(unschedulablePods, Occurrence(e, NoPod))
         /\ strandedByNarrowing' = (strandedByNarrowing \/ Stranded(Occurrence(e, NoPod)))
         /\ RecordIf(Occurrence(e, NoPod), keep)
         /\ UNCHANGED <<inFlight, attempts, timestamp, pendingPlugins, unschedulableCount,
                        consecutiveErrorsCount, flushTimestamp, schedulingGate, now, schedulingCycle, lostEvent, extVars>>

\* (A conjunction, not an alias of MoveRequest: TLC names a step after the
\* innermost operator whose body is not another operator's application, and
\* the graphs label this step MoveAllToActiveOrBackoffQueue.)
MoveAllToActiveOrBackoffQueue(e) ==
    /\ e \in Events \cup {Wildcard}
    /\ MoveRequest(e, TRUE)

\* R11h: a pod was bound (AssignedPodAdded) or a bound pod changed
\* (AssignedPodUpdated): a move request over every pod in unschedulablePods,
\* the hints decide.  Mutation "AssignedNotRecorded" leaves the event out of
\* the in-flight list.  In Next only if Extensions lists "AssignedPod".
AssignedPodAdded ==
    /\ "AssignedPod" \in Extensions
    /\ MoveRequest(AssignedPodAdd, Mutation # "AssignedNotRecorded")
AssignedPodUpdated ==
    /\ "AssignedPod" \in Extensions
    /\ MoveRequest(AssignedPodUpdate, Mutation # "AssignedNotRecorded")

\* R13h: Pop is refused from now on; every other operation keeps working.
\* Idempotent.  In Next only if Extensions lists "Close".
Close ==
    /\ "Close" \in Extensions
    /\ closed' = TRUE
    /\ UNCHANGED <<queueVars, podVars, inFlightEvents, now, schedulingCycle, ghostVars, nominated, poppedAfterClose>>

\* R18: preemption nominates p to node n (NoNode: drops its nomination);
\* p need not be queued.  In Next only if Extensions lists "Nominator".
AddNominatedPod(p, n) ==
    /\ "Nominator" \in Extensions
    /\ nominated' = Nominate(p, n)
    /\ UNCHANGED <<queueVars, podVars, inFlightEvents, now, schedulingCycle, ghostVars, closed, poppedAfterClose>>

\* R5h, without PreEnqueue.
FlushBackoffQCompleted ==
    LET done == {p \in backoffQ : ~IsBackingOff(p)}
    IN  /\ backoffQ' = backoffQ \ done
        /\ activeQ' = activeQ \cup done
        /\ initialAttemptTimestamp' = FirstActive(done)
        /\ UNCHANGED <<unschedulablePods, inFlight, attempts, timestamp, unschedulablePlugins, pendingPlugins,
                       unschedulableCount, consecutiveErrorsCount, gatingPlugin, flushTimestamp, schedulingGate,
                       inFlightEvents, now, schedulingCycle, ghostVars, extVars>>

\* R6h: the later of Timestamp and FlushTimestamp, strictly more than
\* MaxInUnschedulable ago; then R4h with UnschedulableTimeout.
LastTouched(p) == IF flushTimestamp[p] > timestamp[p] THEN flushTimestamp[p] ELSE timestamp[p]

LeftoverPods == {p \in unschedulablePods : now - LastTouched(p) > MaxInUnschedulable}

FlushUnschedulablePodsLeftover ==
    LET leftover == LeftoverPods
    IN  IF leftover = {} THEN UNCHANGED vars
        ELSE /\ CanRecord
             /\ flushTimestamp' = [p \in Pods |-> IF p \in leftover THEN now ELSE flushTimestamp[p]]
             /\ MovePods(leftover, Occurrence(UnschedulableTimeout, NoPod))
             /\ Record(Occurrence(UnschedulableTimeout, NoPod))
             /\ UNCHANGED <<inFlight, attempts, timestamp, pendingPlugins, unschedulableCount,
                            consecutiveErrorsCount, schedulingGate, now, schedulingCycle, lostEvent, strandedByNarrowing, extVars>>

\* The clock advances one tick.
Tick ==
    /\ now < MaxTime
    /\ now' = now + 1
    /\ UNCHANGED <<queueVars, podVars, inFlightEvents, schedulingCycle, ghostVars, extVars>>

Init ==
    /\ activeQ = {} /\ backoffQ = {} /\ unschedulablePods = {} /\ inFlight = {}
    /\ attempts = [p \in Pods |-> 0]
    /\ timestamp = [p \in Pods |-> 0]
    /\ initialAttemptTimestamp = [p \in Pods |-> NoTime]
    /\ unschedulablePlugins = [p \in Pods |-> {}]
    /\ pendingPlugins = [p \in Pods |-> {}]
    /\ unschedulableCount = [p \in Pods |-> 0]
    /\ consecutiveErrorsCount = [p \in Pods |-> 0]
    /\ gatingPlugin = [p \in Pods |-> NoPlugin]
    /\ flushTimestamp = [p \in Pods |-> NoTime]
    /\ schedulingGate = [p \in Pods |-> FALSE]
    /\ inFlightEvents = << >>
    /\ now = 0
    /\ schedulingCycle = 0
    /\ received = [p \in Pods |-> {}]
    /\ lostEvent = FALSE
    /\ strandedByNarrowing = FALSE
    /\ closed = FALSE
    /\ nominated = [n \in Nodes |-> << >>]
    /\ poppedAfterClose = FALSE

\* The action alphabet, shared with the Go exploration in agreement_test.go;
\* the last four are enabled only if the configuration lists them in
\* Extensions.
Next ==
    \/ \E p \in Pods : Add(p)
    \/ \E p \in Pods : Pop(p)
    \/ \E p \in Pods, f \in Failures : AddUnschedulableIfNotPresent(p, f)
    \/ \E p \in Pods : Done(p)
    \/ \E p \in Pods : Delete(p)
    \/ \E p \in Pods : Activate(p)
    \/ \E p \in Pods : Update(p)
    \/ \E e \in Events \cup {Wildcard} : MoveAllToActiveOrBackoffQueue(e)
    \/ FlushBackoffQCompleted
    \/ FlushUnschedulablePodsLeftover
    \/ Tick
    \/ AssignedPodAdded
    \/ AssignedPodUpdated
    \/ Close
    \/ \E p \in Pods, n \in Nodes \cup {NoNode} : AddNominatedPod(p, n)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(***************************************************************************)
(* Invariants                                                              *)
(***************************************************************************)

Time == 0..MaxTime
Counts == 0..MaxCycle

\* The event records the list may hold.
Occurrences == {Occurrence(e, NoPod) : e \in NonWildcards \cup {Wildcard, UnschedulableTimeout}}
               \cup {Occurrence(ForceActivate, p) : p \in Pods}

TypeOK ==
    /\ activeQ \subseteq Pods /\ backoffQ \subseteq Pods
    /\ unschedulablePods \subseteq Pods /\ inFlight \subseteq Pods
    /\ attempts \in [Pods -> Counts]
    /\ timestamp \in [Pods -> Time]
    /\ initialAttemptTimestamp \in [Pods -> Time \cup {NoTime}]
    /\ unschedulablePlugins \in [Pods -> SUBSET AllPlugins]
    /\ pendingPlugins \in [Pods -> SUBSET Plugins]
    /\ unschedulableCount \in [Pods -> Counts] /\ consecutiveErrorsCount \in [Pods -> Counts]
    /\ gatingPlugin \in [Pods -> {NoPlugin, Gate}]
    /\ flushTimestamp \in [Pods -> Time \cup {NoTime}]
    /\ schedulingGate \in [Pods -> BOOLEAN]
    /\ inFlightEvents \in Seq({Marker(p) : p \in Pods} \cup Occurrences)
    /\ now \in Time
    /\ schedulingCycle \in 0..MaxCycle
    /\ received \in [Pods -> SUBSET Occurrences]
    /\ lostEvent \in BOOLEAN
    /\ strandedByNarrowing \in BOOLEAN
    /\ closed \in BOOLEAN /\ poppedAfterClose \in BOOLEAN
    /\ nominated \in [Nodes -> Seq(Pods)]
    \* A pod the queue does not hold leaves no trace (Forget).
    /\ \A p \in Pods \ Held :
          /\ attempts[p] = 0 /\ timestamp[p] = 0 /\ initialAttemptTimestamp[p] = NoTime
          /\ unschedulablePlugins[p] = {} /\ pendingPlugins[p] = {}
          /\ unschedulableCount[p] = 0 /\ consecutiveErrorsCount[p] = 0
          /\ gatingPlugin[p] = NoPlugin /\ flushTimestamp[p] = NoTime /\ ~schedulingGate[p]
          /\ received[p] = {}
    \* Only a pod waiting in unschedulablePods is gated, and Gate rejected it.
    /\ \A p \in Pods : gatingPlugin[p] # NoPlugin => p \in unschedulablePods /\ Gate \in unschedulablePlugins[p]
    \* A pod not gated has been in activeQ; Timestamps are never in the future.
    /\ \A p \in Held : gatingPlugin[p] = NoPlugin => initialAttemptTimestamp[p] # NoTime
    /\ \A p \in Held : timestamp[p] <= now /\ flushTimestamp[p] <= now
    \* Consecutive errors are counted only while no rejector reported.
    /\ \A p \in Held : consecutiveErrorsCount[p] > 0 => pendingPlugins[p] = {}

\* I1: every pod the queue holds is in exactly one place (gated pods in
\* unschedulablePods).
I1 ==
    /\ activeQ \cap backoffQ = {}
    /\ activeQ \cap unschedulablePods = {}
    /\ activeQ \cap inFlight = {}
    /\ backoffQ \cap unschedulablePods = {}
    /\ backoffQ \cap inFlight = {}
    /\ unschedulablePods \cap inFlight = {}

\* I2h, state part: the duration never decreases with the count, never
\* exceeds the max, and is 0 exactly for count 0 or max 0; a pod waits in
\* backoffQ only while its count gives it a backoff.
I2h ==
    /\ \A c \in 0..(MaxCycle + 1) :
          /\ Duration(c) <= Duration(c + 1)
          /\ Duration(c) <= MaxBackoff
          /\ Duration(c) = 0 <=> (c = 0 \/ MaxBackoff = 0)
    /\ \A p \in backoffQ : BackoffCount(p) >= 1 /\ Duration(BackoffCount(p)) > 0

\* I3h: no failed pod ever landed, ungated, in unschedulablePods although it
\* had no rejector or an event received while it was in flight requeues it.
\* The ghost records the step property I3hStep, so that TLC reports a
\* violation as an invariant.
I3h == ~lostEvent

\* I8: pre-queueing hints only leave pods parked, and only where they did
\* not name them (R21, R22); see spec.I8NarrowingOnlySkips.
I8 == ~strandedByNarrowing

\* I4, state part: the places partition the held pods (with I1).
I4 == Cardinality(Held) =
        Cardinality(activeQ) + Cardinality(backoffQ) + Cardinality(unschedulablePods) + Cardinality(inFlight)

\* I6, state part (moveRequestCycle does not exist here: it stays -1).
I6 == schedulingCycle >= Cardinality(inFlight)

\* I7: the markers of the in-flight list are exactly the pods in flight, one
\* each; the list is empty when nothing is in flight and never starts with
\* an event record, so every record is one some pod in flight may replay.
I7 ==
    /\ \A p \in inFlight : Cardinality({i \in Indices(inFlightEvents) : inFlightEvents[i].pod = p}) = 1
    /\ \A i \in Indices(inFlightEvents) : IsMarker(inFlightEvents[i]) => inFlightEvents[i].pod \in inFlight
    /\ inFlight = {} => inFlightEvents = << >>
    /\ inFlightEvents # << >> => IsMarker(Head(inFlightEvents))

\* No lost event, as a state invariant: what a pod in flight would replay is
\* exactly what it received since its Pop (the ghost).  Stronger than I3h,
\* which only looks at the outcome of a failure.
NoLostEvent == \A p \in inFlight : RecordsAfter(inFlightEvents, p) = received[p]

\* R13h: no Pop succeeds once the queue is closed.
NoPopAfterClose == ~poppedAfterClose

\* R18: a pod is nominated to one node at most, and listed there once.
NominatedOnce ==
    /\ \A p \in Pods : Cardinality({n \in Nodes : \E i \in 1..Len(nominated[n]) : nominated[n][i] = p}) <= 1
    /\ \A n \in Nodes : \A i, j \in 1..Len(nominated[n]) : nominated[n][i] = nominated[n][j] => i = j

Invariants == TypeOK /\ I1 /\ I2h /\ I3h /\ I4 /\ I6 /\ I7 /\ NoLostEvent /\ NoPopAfterClose /\ NominatedOnce

-----------------------------------------------------------------------------
(***************************************************************************)
(* Step properties, checked as [][P]_vars, stated over the change alone.   *)
(***************************************************************************)

\* I2h: a pod's expiry never moves earlier while it waits in backoffQ; the
\* backoffQ flush releases exactly the pods no longer backing off, into
\* activeQ; an event never moves a backing-off pod from unschedulablePods to
\* activeQ unless a pending plugin may have said Queue.
ExpiryNow(p) == ExpiryOf(CountOf(unschedulableCount'[p], consecutiveErrorsCount'[p]), timestamp'[p])
BackingOffNow(p) == BackingOff(CountOf(unschedulableCount'[p], consecutiveErrorsCount'[p]), timestamp'[p], now')

I2hStep ==
    /\ \A p \in backoffQ \cap backoffQ' : ExpiryNow(p) >= BackoffExpiry(p)
    /\ FlushBackoffQCompleted =>
          /\ \A p \in backoffQ \ backoffQ' : p \in activeQ' /\ ~IsBackingOff(p)
          /\ \A p \in backoffQ' : BackingOffNow(p)
    /\ (\/ \E e \in Events \cup {Wildcard} : MoveAllToActiveOrBackoffQueue(e)
        \/ FlushUnschedulablePodsLeftover
        \/ \E p \in Pods : Update(p)
        \/ AssignedPodAdded \/ AssignedPodUpdated) =>
          \A p \in unschedulablePods \cap activeQ' : ~BackingOffNow(p) \/ pendingPlugins'[p] # {}

\* I3h as a step: the outcome LandsDespiteEvent never happens.
I3hStep == \A p \in inFlight : ~LandsDespiteEvent(p)

\* I4h: at most one pod enters the queue per step, fresh (in activeQ, or
\* gated in unschedulablePods); at most one leaves, not in the same step; a
\* pod goes in flight only from activeQ, or from backoffQ when activeQ is
\* empty, one per step.
I4hStep ==
    /\ Cardinality(Held' \ Held) <= 1
    /\ Cardinality(Held \ Held') <= 1
    /\ Held' \ Held = {} \/ Held \ Held' = {}
    /\ \A p \in Held' \ Held : attempts'[p] = 0 /\ (p \in activeQ' \/ gatingPlugin'[p] = Gate)
    /\ inFlight' \ inFlight \subseteq (IF activeQ # {} THEN activeQ ELSE backoffQ)
    /\ Cardinality(inFlight' \ inFlight) <= 1

\* I5h: Pop takes a maximal pod of activeQ, or, activeQ being empty, one of
\* BackoffPopCandidates.
I5hStep == \A p \in inFlight' \ inFlight : p \in PopCandidates

\* I6: schedulingCycle grows by exactly one per Pop and by nothing otherwise.
I6Step == schedulingCycle' = schedulingCycle + Cardinality(inFlight' \ inFlight)

\* R13h: a closed queue stays closed.
CloseStep == closed => closed'

StepProperties ==
    [][I2hStep /\ I3hStep /\ I4hStep /\ I5hStep /\ I6Step /\ CloseStep]_vars

=============================================================================
