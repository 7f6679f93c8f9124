--------------------- MODULE SchedulingQueuePodGroups ---------------------
(***************************************************************************)
(* The kube-scheduler scheduling queue, pod-groups profile: upstream       *)
(* v1.37.2 with GenericWorkload on (gang scheduling).  The queue holds     *)
(* entities: a pod that belongs to no pod group, or a pod group (the root  *)
(* of its workload; composite pod groups are not modelled, so every pod    *)
(* group is a root).  A group is queued, popped and backed off as one      *)
(* entity: Pop puts every member in flight and starts the group's          *)
(* scheduling cycle, which AddAttemptedPodGroupIfNeeded ends.  Names are   *)
(* the queue's own (activeQ, backoffQ, unschedulablePods, inFlight,         *)
(* pendingPodGroupPods, incompletePodGroupPods, inCycle,                   *)
(* AddAttemptedPodGroupIfNeeded).                                          *)
(*                                                                         *)
(* The open cycles.  The contract (spec.PodGroupQueue, model/) keeps each  *)
(* group's own open cycle, from its Pop to its                             *)
(* AddAttemptedPodGroupIfNeeded: inCycle, spec.PodGroupsState.InCycle.     *)
(* Upstream v1.37.2 keeps one key instead, lastPoppedEntity, overwritten   *)
(* by every Pop, cleared by AddAttemptedPodGroupIfNeeded and by the        *)
(* failure of any pod outside groups.  Since Pop waits for a group's cycle *)
(* to end (one scheduling goroutine), inCycle holds at most one group, and *)
(* upstream's key is inCycle but for that clearing: Mutation               *)
(* "ClearAnyPopped" is upstream, a configuration that must break the       *)
(* invariants (PodGroupsUpstream*.cfg).  With Mutation = "none" the spec   *)
(* is the contract, and GraphPodGroups.cfg's state graph is the model's    *)
(* (agreement_podgroups_test.go).                                          *)
(*                                                                         *)
(* A module of its own, not an extension of SchedulingQueueHints.tla: the  *)
(* places hold entities instead of pods, and the hints machinery (the      *)
(* in-flight event list and its replay) is bypassed for a group after an   *)
(* attempt.  What the hints spec checks about pods outside groups is left  *)
(* to it; here a pod outside every group does only what the suspected race *)
(* needs: it is added, popped, fails (in its binding cycle, so at any time *)
(* while it is in flight, also while a group's cycle runs), is woken by a  *)
(* wildcard move, activated and deleted.                                   *)
(*                                                                         *)
(* Abstractions.  Every pod and group has the same priority, so Pop takes *)
(* an entity of activeQ with the least Timestamp (ties a free choice), or, *)
(* activeQ being empty, a pod of backoffQ that some plugin rejected        *)
(* (SchedulerPopFromBackoffQ).                                             *)
(* A group in backoffQ is never popped from it: upstream files every group *)
(* under the error backoff queue (a group entity carries no rejector       *)
(* plugins of its own).  One tick is one backoff ordering window (one      *)
(* second), so alignment is the identity.  Backoff is per entity, from     *)
(* the entity's unschedulableCount and consecutiveErrorsCount, with the    *)
(* maximum scaled by the square root of the group's size; the expiry is    *)
(* computed once, when the entity fails (upstream caches it), so           *)
(* backoffExpiry is kept instead of a timestamp.  A failure's outcome for  *)
(* a pod outside groups is "unschedulable" (no event queued it: it waits   *)
(* in unschedulablePods) or "error"; the replay of events received in      *)
(* flight is SchedulingQueueHints.tla's.  Not modelled: PreEnqueue gating  *)
(* (so no group is ever parked), Update, Close, the nominator, composite   *)
(* pod groups, UpdatePodGroup (no queue effect), the leftover flush (a     *)
(* wildcard move does the same here), Delete of a pod in flight.           *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    Pods,           \* pod keys
    Groups,         \* pod-group names (each a root: no composite pod groups)
    GroupOf,        \* [Pods -> Groups \cup {NoGroup}]: the pod's scheduling group
    InitialBackoff, \* podInitialBackoffDuration, in ticks
    MaxBackoff,     \* podMaxBackoffDuration, in ticks (for one pod); 0 switches backoff off
    MaxTime,        \* the clock stops here
    MaxCycle,       \* Pop stops once schedulingCycle reaches this
    Mutation        \* "none" (the contract); else one deliberate change:
                    \* "ClearAnyPopped": upstream v1.37.2 -- a failure of a pod
                    \*   outside groups clears its one lastPoppedEntity, so
                    \*   ends the open cycle of whatever group it names;
                    \* negative configurations (each must break one invariant):
                    \* "AddIgnoresPopped" (NeverPartlyInFlight),
                    \* "KeepPending" (NoPendingAfterCycle),
                    \* "ParkAfterAttempt" (NoGroupParked),
                    \* "DeleteDropsGroup" (NoLostPod),
                    \* "NoGroupBackoff" (NoBackoffSkip),
                    \* "RequeueOnePending" (NoPendingAfterCycle),
                    \* "NoGroupExpiry" (ExpiryOfCount),
                    \* "NoGroupCount" (StepProperties: CountStep),
                    \* "ClearOtherGroup" (InCycleIsCycle)

NoGroup == ""    \* GroupOf of a pod outside every group
NoEntity == ""   \* groupCycle.group when no group's cycle runs
NoTime == -1     \* Go's zero time: no backoff

ASSUME /\ GroupOf \in [Pods -> Groups \cup {NoGroup}]
       /\ NoGroup \notin Groups /\ Pods \cap Groups = {} /\ NoEntity \notin Pods
       /\ InitialBackoff \in Nat \ {0} /\ MaxBackoff \in Nat
       /\ MaxBackoff = 0 \/ MaxBackoff >= InitialBackoff
       /\ MaxTime \in Nat /\ MaxCycle \in Nat
       /\ Mutation \in {"none", "ClearAnyPopped", "AddIgnoresPopped", "KeepPending",
                        "ParkAfterAttempt", "DeleteDropsGroup", "NoGroupBackoff",
                        "RequeueOnePending", "NoGroupExpiry", "NoGroupCount", "ClearOtherGroup"}

SinglePods == {p \in Pods : GroupOf[p] = NoGroup}
MemberPods == Pods \ SinglePods
GroupPods(g) == {p \in Pods : GroupOf[p] = g}
Entities == SinglePods \cup Groups
EntityOf(p) == IF GroupOf[p] = NoGroup THEN p ELSE GroupOf[p]

\* The status a group's scheduling cycle ends with, and the outcomes of a
\* failure of a pod outside groups.
Statuses == {"success", "rejected", "error"}
Outcomes == {"unschedulable", "error"}

NoCycle == [group |-> NoEntity, unschedulableCount |-> 0, consecutiveErrorsCount |-> 0,
            timestamp |-> NoTime, popped |-> {}]

VARIABLES
    activeQ,                 \* entities waiting to be popped
    backoffQ,                \* entities waiting for their backoff to complete
    unschedulablePods,       \* entities waiting for an event (upstream: unschedulableEntities)
    inFlight,                \* pods popped and not yet handed back or Done
    members,                 \* [Groups -> SUBSET Pods]: the members of a queued group entity
    pendingPodGroupPods,     \* members that arrived while their group's cycle was open
    incompletePodGroupPods,  \* members whose PodGroup object the queue has not seen
    podGroups,               \* the PodGroup objects the queue has seen (the workload forest)
    inCycle,                 \* the groups whose scheduling cycle the queue holds open
    groupCycle,              \* the scheduler's side: the group whose scheduling cycle runs,
                             \* the counts and Timestamp it was popped with and the members
                             \* popped (the QueuedPodGroupInfo it holds)
    unschedulableCount,      \* [Entities -> Nat]: UnschedulableCount of a held entity
    consecutiveErrorsCount,  \* [Entities -> Nat]: ConsecutiveErrorsCount of a held entity
    backoffExpiry,           \* [Entities -> time \cup {NoTime}]: BackoffExpiration
    timestamp,               \* [Entities -> time \cup {NoTime}]: Timestamp of a held entity,
                             \* which orders activeQ
    now,                     \* the clock
    schedulingCycle,         \* number of Pops so far
    live,                    \* ghost: the pods added and neither deleted nor Done
    skippedBackoff           \* ghost: a group's failed cycle once left it in activeQ backing off

queueVars == <<activeQ, backoffQ, unschedulablePods, inFlight, members,
               pendingPodGroupPods, incompletePodGroupPods>>
countVars == <<unschedulableCount, consecutiveErrorsCount, backoffExpiry>>
entityVars == <<countVars, timestamp>>
vars == <<queueVars, entityVars, podGroups, inCycle, groupCycle, now,
          schedulingCycle, live, skippedBackoff>>

Queued == activeQ \cup backoffQ \cup unschedulablePods
QueuedPods == (Queued \cap SinglePods) \cup UNION {members[g] : g \in Queued \cap Groups}
Held == QueuedPods \cup inFlight \cup pendingPodGroupPods \cup incompletePodGroupPods

(***************************************************************************)
(* Backoff of an entity of `size` pods: InitialBackoff doubled per count,  *)
(* capped at MaxBackoff times the square root of the size (rounded down,   *)
(* as the Go duration is truncated) for a group of more than one pod.      *)
(***************************************************************************)
SqrtScaled(m, size) ==
    CHOOSE k \in 0..(m * size) : k * k <= m * m * size /\ (k + 1) * (k + 1) > m * m * size
MaxBackoffFor(size) == IF size > 1 THEN SqrtScaled(MaxBackoff, size) ELSE MaxBackoff
CountOf(ue, ce) == IF ce > 0 THEN ce ELSE ue
Duration(c, size) ==
    IF MaxBackoff = 0 \/ c = 0 THEN 0
    ELSE LET d == InitialBackoff * 2^(c - 1)
         IN  IF d > MaxBackoffFor(size) THEN MaxBackoffFor(size) ELSE d
\* The expiry of a failure now (the failure refreshes the timestamp).
ExpiryOf(c, size) == IF Duration(c, size) = 0 THEN NoTime ELSE now + Duration(c, size)
\* Still backing off: an expiry equal to now still is.
BackingOff(e) == backoffExpiry[e] # NoTime /\ backoffExpiry[e] >= now

\* The entities' data reset: an entity the queue no longer holds keeps none.
Forget(E) ==
    /\ unschedulableCount' = [e \in Entities |-> IF e \in E THEN 0 ELSE unschedulableCount[e]]
    /\ consecutiveErrorsCount' = [e \in Entities |-> IF e \in E THEN 0 ELSE consecutiveErrorsCount[e]]
    /\ backoffExpiry' = [e \in Entities |-> IF e \in E THEN NoTime ELSE backoffExpiry[e]]
    /\ timestamp' = [e \in Entities |-> IF e \in E THEN NoTime ELSE timestamp[e]]

(***************************************************************************)
(* addPodGroupMember, for a set P of members of group g arriving together  *)
(* (AddPodGroup drains several): a member of a group whose PodGroup object *)
(* is unknown waits in incompletePodGroupPods (the caller sets that        *)
(* variable); a queued group takes it in and is requeued where it was      *)
(* (from backoffQ to activeQ once its backoff is over); a group whose      *)
(* cycle is open gets it in pendingPodGroupPods; otherwise it is the first *)
(* member of a new entity in activeQ, Timestamp now.                       *)
(***************************************************************************)
AddMembers(P, g, known) ==
    LET queued == g \in Queued
        pending == known /\ ~queued /\ g \in inCycle /\ Mutation # "AddIgnoresPopped"
        fresh == known /\ ~queued /\ ~pending /\ P # {}
        release == known /\ queued /\ g \in backoffQ /\ ~BackingOff(g)
    IN  /\ pendingPodGroupPods' = IF pending THEN pendingPodGroupPods \cup P ELSE pendingPodGroupPods
        /\ members' = IF known /\ (queued \/ fresh) THEN [members EXCEPT ![g] = @ \cup P] ELSE members
        /\ activeQ' = IF fresh \/ release THEN activeQ \cup {g} ELSE activeQ
        /\ backoffQ' = IF release THEN backoffQ \ {g} ELSE backoffQ
        /\ timestamp' = IF fresh THEN [timestamp EXCEPT ![g] = now] ELSE timestamp

IncompleteIfUnknown(P, g) ==
    incompletePodGroupPods' = IF g \in podGroups THEN incompletePodGroupPods
                              ELSE incompletePodGroupPods \cup P

(***************************************************************************)
(* Actions                                                                 *)
(***************************************************************************)

\* A new pod.  Add of a pod the queue owes (live) is left out.
Add(p) ==
    /\ p \notin live
    /\ live' = live \cup {p}
    /\ IF GroupOf[p] = NoGroup
       THEN /\ activeQ' = activeQ \cup {p}
            /\ timestamp' = [timestamp EXCEPT ![p] = now]
            /\ UNCHANGED <<backoffQ, members, pendingPodGroupPods, incompletePodGroupPods>>
       ELSE /\ AddMembers({p}, GroupOf[p], GroupOf[p] \in podGroups)
            /\ IncompleteIfUnknown({p}, GroupOf[p])
    /\ UNCHANGED <<unschedulablePods, inFlight, countVars, podGroups, inCycle,
                   groupCycle, now, schedulingCycle, skippedBackoff>>

\* Pod outside groups that Pop may take when activeQ is empty: rejected by
\* a plugin (not an error), so in upstream's backoffQ proper.
BackoffPopCandidates == {e \in backoffQ \cap SinglePods : consecutiveErrorsCount[e] = 0}
\* The first entities of activeQ: the least Timestamp (every priority is
\* the same).
ActiveCandidates == {e \in activeQ : \A o \in activeQ : timestamp[e] <= timestamp[o]}
PopCandidates == IF activeQ # {} THEN ActiveCandidates ELSE BackoffPopCandidates

\* One scheduling goroutine: no Pop while a group's cycle runs.  A group's
\* members all go in flight and its cycle opens; its counts and Timestamp
\* go with the scheduler (groupCycle), with the members popped.
Pop(e) ==
    /\ groupCycle.group = NoEntity
    /\ schedulingCycle < MaxCycle
    /\ e \in PopCandidates
    /\ activeQ' = activeQ \ {e}
    /\ backoffQ' = backoffQ \ {e}
    /\ schedulingCycle' = schedulingCycle + 1
    /\ IF e \in Groups
       THEN /\ inFlight' = inFlight \cup members[e]
            /\ members' = [members EXCEPT ![e] = {}]
            /\ inCycle' = inCycle \cup {e}
            /\ groupCycle' = [group |-> e, unschedulableCount |-> unschedulableCount[e],
                              consecutiveErrorsCount |-> consecutiveErrorsCount[e],
                              timestamp |-> timestamp[e], popped |-> members[e]]
            /\ Forget({e})
       ELSE /\ inFlight' = inFlight \cup {e}
            /\ UNCHANGED <<members, inCycle, groupCycle, entityVars>>
    /\ UNCHANGED <<unschedulablePods, pendingPodGroupPods, incompletePodGroupPods, podGroups,
                   now, live, skippedBackoff>>

\* A pod in flight fails (its scheduling or binding cycle).  A member is
\* Done first and re-added as a member: while its group's cycle is open it
\* waits in pendingPodGroupPods (its own outcome does not matter: the
\* group's cycle decides).  A pod outside groups counts the failure, its
\* Timestamp becomes now, and it waits in unschedulablePods
\* ("unschedulable") or backs off ("error"); no group's cycle ends, but
\* upstream ("ClearAnyPopped") clears its lastPoppedEntity, whatever group
\* it names.  "ClearOtherGroup": a member's failure ends the open cycle of
\* every other group (a member of one group may still be in flight, in its
\* binding cycle, while another group's cycle runs).
AddUnschedulablePodIfNotPresent(p, f) ==
    /\ p \in inFlight
    /\ inFlight' = inFlight \ {p}
    /\ IF GroupOf[p] # NoGroup
       THEN /\ AddMembers({p}, GroupOf[p], GroupOf[p] \in podGroups)
            /\ IncompleteIfUnknown({p}, GroupOf[p])
            /\ inCycle' = IF Mutation = "ClearOtherGroup" THEN inCycle \cap {GroupOf[p]} ELSE inCycle
            /\ UNCHANGED <<unschedulablePods, countVars>>
       ELSE LET ue == IF f = "error" THEN unschedulableCount[p] ELSE unschedulableCount[p] + 1
                ce == IF f = "error" THEN consecutiveErrorsCount[p] + 1 ELSE 0
                expiry == ExpiryOf(CountOf(ue, ce), 1)
                toBackoff == f = "error" /\ expiry # NoTime
            IN  /\ unschedulableCount' = [unschedulableCount EXCEPT ![p] = ue]
                /\ consecutiveErrorsCount' = [consecutiveErrorsCount EXCEPT ![p] = ce]
                /\ backoffExpiry' = [backoffExpiry EXCEPT ![p] = expiry]
                /\ timestamp' = [timestamp EXCEPT ![p] = now]
                /\ unschedulablePods' = IF f = "unschedulable" THEN unschedulablePods \cup {p}
                                        ELSE unschedulablePods
                /\ backoffQ' = IF toBackoff THEN backoffQ \cup {p} ELSE backoffQ
                /\ activeQ' = IF f = "error" /\ ~toBackoff THEN activeQ \cup {p} ELSE activeQ
                /\ inCycle' = IF Mutation = "ClearAnyPopped" THEN {} ELSE inCycle
                /\ UNCHANGED <<members, pendingPodGroupPods, incompletePodGroupPods>>
    /\ UNCHANGED <<podGroups, groupCycle, now, schedulingCycle, live, skippedBackoff>>

\* A pod in flight is done for good (bound).
Done(p) ==
    /\ p \in inFlight
    /\ inFlight' = inFlight \ {p}
    /\ live' = live \ {p}
    /\ IF GroupOf[p] = NoGroup THEN Forget({p}) ELSE UNCHANGED entityVars
    /\ UNCHANGED <<activeQ, backoffQ, unschedulablePods, members, pendingPodGroupPods,
                   incompletePodGroupPods, podGroups, inCycle, groupCycle, now,
                   schedulingCycle, skippedBackoff>>

\* The end of group g's scheduling cycle.  A group queued meanwhile is an
\* error (ErrAlreadyQueued), which changes nothing.  Mutations: the pending
\* members stay ("KeepPending") or but one do ("RequeueOnePending"); a
\* failed cycle is not counted ("NoGroupCount") or gets no backoff expiry
\* ("NoGroupExpiry"); it parks the group ("ParkAfterAttempt") or sends it
\* to activeQ backing off ("NoGroupBackoff").  Otherwise g's cycle
\* closes and the pending members, if any, become the group's entity again
\* (or wait in incompletePodGroupPods if the PodGroup object went away):
\* after success straight to activeQ with the counts reset, its Timestamp
\* the popped entity's if one of them was popped in this cycle (a member
\* that failed is retried first), else now; after a rejection or an error
\* counted, Timestamp now, to backoffQ while backing off, else activeQ;
\* never to unschedulablePods.
NewCounts(st) ==
    CASE st = "success" -> <<0, 0>>
      [] Mutation = "NoGroupCount" -> <<groupCycle.unschedulableCount, groupCycle.consecutiveErrorsCount>>
      [] st = "rejected" -> <<groupCycle.unschedulableCount + 1, 0>>
      [] st = "error" -> <<groupCycle.unschedulableCount, groupCycle.consecutiveErrorsCount + 1>>

AddAttemptedPodGroupIfNeeded(g, st) ==
    /\ groupCycle.group = g
    /\ groupCycle' = NoCycle
    /\ LET pending == pendingPodGroupPods \cap GroupPods(g)
           P == CASE Mutation = "KeepPending" -> {}
                  [] Mutation = "RequeueOnePending" /\ pending # {} -> {CHOOSE p \in pending : TRUE}
                  [] OTHER -> pending
           ue == NewCounts(st)[1]
           ce == NewCounts(st)[2]
           expiry == IF st = "success" \/ Mutation = "NoGroupExpiry" THEN NoTime
                     ELSE ExpiryOf(CountOf(ue, ce), Cardinality(P))
           ts == IF st = "success" /\ P \cap groupCycle.popped # {} THEN groupCycle.timestamp ELSE now
           requeue == g \notin Queued /\ P # {} /\ g \in podGroups
           park == requeue /\ st # "success" /\ Mutation = "ParkAfterAttempt"
           toBackoff == requeue /\ ~park /\ expiry # NoTime /\ Mutation # "NoGroupBackoff"
           toActive == requeue /\ ~park /\ ~toBackoff
       IN  IF g \in Queued
           THEN /\ skippedBackoff' = (skippedBackoff \/
                      (st # "success" /\ g \in activeQ /\ Duration(CountOf(ue, ce), Cardinality(members[g])) > 0))
                /\ UNCHANGED <<queueVars, entityVars, inCycle>>
           ELSE /\ inCycle' = inCycle \ {g}
                /\ pendingPodGroupPods' = pendingPodGroupPods \ P
                /\ incompletePodGroupPods' = IF g \notin podGroups THEN incompletePodGroupPods \cup P
                                             ELSE incompletePodGroupPods
                /\ members' = IF requeue THEN [members EXCEPT ![g] = P] ELSE members
                /\ activeQ' = IF toActive THEN activeQ \cup {g} ELSE activeQ
                /\ backoffQ' = IF toBackoff THEN backoffQ \cup {g} ELSE backoffQ
                /\ unschedulablePods' = IF park THEN unschedulablePods \cup {g} ELSE unschedulablePods
                /\ unschedulableCount' = IF requeue THEN [unschedulableCount EXCEPT ![g] = ue] ELSE unschedulableCount
                /\ consecutiveErrorsCount' = IF requeue THEN [consecutiveErrorsCount EXCEPT ![g] = ce]
                                             ELSE consecutiveErrorsCount
                /\ backoffExpiry' = IF requeue THEN [backoffExpiry EXCEPT ![g] = expiry] ELSE backoffExpiry
                /\ timestamp' = IF requeue THEN [timestamp EXCEPT ![g] = ts] ELSE timestamp
                /\ skippedBackoff' = (skippedBackoff \/ (toActive /\ st # "success" /\ expiry # NoTime))
                /\ UNCHANGED inFlight
    /\ UNCHANGED <<podGroups, now, schedulingCycle, live>>

\* Activate of a member activates its group; an entity in backoffQ or
\* unschedulablePods goes to activeQ, any other is left alone (an
\* activation of a pod in flight is an event its failure replays: the hints
\* spec's business; a group's cycle replays none).  As for every operation
\* here, a call that changes nothing is not a step.
Activate(p) ==
    LET e == EntityOf(p)
        moves == e \in backoffQ \cup unschedulablePods
    IN  /\ moves
        /\ activeQ' = activeQ \cup {e}
        /\ backoffQ' = backoffQ \ {e}
        /\ unschedulablePods' = unschedulablePods \ {e}
        /\ UNCHANGED <<inFlight, members, pendingPodGroupPods, incompletePodGroupPods, entityVars,
                       podGroups, inCycle, groupCycle, now, schedulingCycle, live, skippedBackoff>>

\* Delete of a pod the queue holds and has not handed out.  A member leaves
\* its group's entity, which is requeued where it was (from backoffQ to
\* activeQ once its backoff is over), or leaves the queue when it was the
\* last; a member not in a queued entity leaves pendingPodGroupPods or
\* incompletePodGroupPods.  "DeleteDropsGroup" drops the whole entity.
Delete(p) ==
    /\ p \in live \ inFlight
    /\ live' = live \ {p}
    /\ IF GroupOf[p] = NoGroup
       THEN /\ activeQ' = activeQ \ {p}
            /\ backoffQ' = backoffQ \ {p}
            /\ unschedulablePods' = unschedulablePods \ {p}
            /\ Forget({p})
            /\ UNCHANGED <<members, pendingPodGroupPods, incompletePodGroupPods>>
       ELSE LET g == GroupOf[p]
                rest == members[g] \ {p}
                gone == rest = {} \/ Mutation = "DeleteDropsGroup"
                release == ~gone /\ g \in backoffQ /\ ~BackingOff(g)
            IN  IF g \notin podGroups
                THEN /\ incompletePodGroupPods' = incompletePodGroupPods \ {p}
                     /\ UNCHANGED <<activeQ, backoffQ, unschedulablePods, members, pendingPodGroupPods, entityVars>>
                ELSE IF g \in Queued
                THEN /\ members' = [members EXCEPT ![g] = IF gone THEN {} ELSE rest]
                     /\ activeQ' = IF gone THEN activeQ \ {g} ELSE IF release THEN activeQ \cup {g} ELSE activeQ
                     /\ backoffQ' = IF gone \/ release THEN backoffQ \ {g} ELSE backoffQ
                     /\ unschedulablePods' = IF gone THEN unschedulablePods \ {g} ELSE unschedulablePods
                     /\ IF gone THEN Forget({g}) ELSE UNCHANGED entityVars
                     /\ UNCHANGED <<pendingPodGroupPods, incompletePodGroupPods>>
                ELSE /\ pendingPodGroupPods' = pendingPodGroupPods \ {p}
                     /\ UNCHANGED <<activeQ, backoffQ, unschedulablePods, members, incompletePodGroupPods, entityVars>>
    /\ UNCHANGED <<inFlight, podGroups, inCycle, groupCycle, now, schedulingCycle, skippedBackoff>>

\* The PodGroup object g is seen: its members waiting in
\* incompletePodGroupPods are added as members (addPodGroupMember each).
AddPodGroup(g) ==
    /\ g \notin podGroups
    /\ podGroups' = podGroups \cup {g}
    /\ LET P == incompletePodGroupPods \cap GroupPods(g)
       IN  /\ incompletePodGroupPods' = incompletePodGroupPods \ P
           /\ AddMembers(P, g, TRUE)
    /\ UNCHANGED <<unschedulablePods, inFlight, countVars, inCycle, groupCycle, now,
                   schedulingCycle, live, skippedBackoff>>

\* The PodGroup object g is deleted: its queued entity, or, while its cycle
\* is open, its pending members, wait in incompletePodGroupPods (the cycle
\* stays open until its AddAttemptedPodGroupIfNeeded).
DeletePodGroup(g) ==
    /\ g \in podGroups
    /\ podGroups' = podGroups \ {g}
    /\ IF g \in Queued
       THEN /\ incompletePodGroupPods' = incompletePodGroupPods \cup members[g]
            /\ members' = [members EXCEPT ![g] = {}]
            /\ activeQ' = activeQ \ {g}
            /\ backoffQ' = backoffQ \ {g}
            /\ unschedulablePods' = unschedulablePods \ {g}
            /\ Forget({g})
            /\ UNCHANGED pendingPodGroupPods
       ELSE LET P == IF g \in inCycle THEN pendingPodGroupPods \cap GroupPods(g) ELSE {}
            IN  /\ pendingPodGroupPods' = pendingPodGroupPods \ P
                /\ incompletePodGroupPods' = incompletePodGroupPods \cup P
                /\ UNCHANGED <<activeQ, backoffQ, unschedulablePods, members, entityVars>>
    /\ UNCHANGED <<inFlight, inCycle, groupCycle, now, schedulingCycle, live, skippedBackoff>>

\* A wildcard move: every entity in unschedulablePods to backoffQ while it
\* backs off, else to activeQ.
MoveAllToActiveOrBackoffQueue ==
    LET toBackoff == {e \in unschedulablePods : BackingOff(e)}
    IN  /\ unschedulablePods # {}
        /\ unschedulablePods' = {}
        /\ backoffQ' = backoffQ \cup toBackoff
        /\ activeQ' = activeQ \cup (unschedulablePods \ toBackoff)
        /\ UNCHANGED <<inFlight, members, pendingPodGroupPods, incompletePodGroupPods, entityVars,
                       podGroups, inCycle, groupCycle, now, schedulingCycle, live, skippedBackoff>>

FlushBackoffQCompleted ==
    LET done == {e \in backoffQ : ~BackingOff(e)}
    IN  /\ done # {}
        /\ backoffQ' = backoffQ \ done
        /\ activeQ' = activeQ \cup done
        /\ UNCHANGED <<unschedulablePods, inFlight, members, pendingPodGroupPods, incompletePodGroupPods,
                       entityVars, podGroups, inCycle, groupCycle, now, schedulingCycle, live,
                       skippedBackoff>>

Tick ==
    /\ now < MaxTime
    /\ now' = now + 1
    /\ UNCHANGED <<queueVars, entityVars, podGroups, inCycle, groupCycle, schedulingCycle,
                   live, skippedBackoff>>

Init ==
    /\ activeQ = {} /\ backoffQ = {} /\ unschedulablePods = {} /\ inFlight = {}
    /\ members = [g \in Groups |-> {}]
    /\ pendingPodGroupPods = {} /\ incompletePodGroupPods = {}
    /\ podGroups = {}
    /\ inCycle = {}
    /\ groupCycle = NoCycle
    /\ unschedulableCount = [e \in Entities |-> 0]
    /\ consecutiveErrorsCount = [e \in Entities |-> 0]
    /\ backoffExpiry = [e \in Entities |-> NoTime]
    /\ timestamp = [e \in Entities |-> NoTime]
    /\ now = 0
    /\ schedulingCycle = 0
    /\ live = {}
    /\ skippedBackoff = FALSE

Next ==
    \/ \E p \in Pods : Add(p)
    \/ \E e \in Entities : Pop(e)
    \/ \E p \in SinglePods, f \in Outcomes : AddUnschedulablePodIfNotPresent(p, f)
    \/ \E p \in MemberPods : AddUnschedulablePodIfNotPresent(p, "unschedulable")
    \/ \E p \in Pods : Done(p)
    \/ \E g \in Groups, st \in Statuses : AddAttemptedPodGroupIfNeeded(g, st)
    \/ \E p \in Pods : Activate(p)
    \/ \E p \in Pods : Delete(p)
    \/ \E g \in Groups : AddPodGroup(g)
    \/ \E g \in Groups : DeletePodGroup(g)
    \/ MoveAllToActiveOrBackoffQueue
    \/ FlushBackoffQCompleted
    \/ Tick

Spec == Init /\ [][Next]_vars

\* The scheduler always ends a group's cycle: weak fairness of the end.
EndGroupCycle == \E g \in Groups, st \in Statuses : AddAttemptedPodGroupIfNeeded(g, st)
FairSpec == Spec /\ WF_vars(EndGroupCycle)

-----------------------------------------------------------------------------
(***************************************************************************)
(* Invariants                                                              *)
(***************************************************************************)

Time == 0..MaxTime
Counts == 0..MaxCycle
Expiries == {NoTime} \cup 0..(MaxTime + MaxBackoffFor(Cardinality(Pods)))

TypeOK ==
    /\ activeQ \subseteq Entities /\ backoffQ \subseteq Entities /\ unschedulablePods \subseteq Entities
    /\ inFlight \subseteq Pods
    /\ members \in [Groups -> SUBSET MemberPods]
    /\ \A g \in Groups : members[g] \subseteq GroupPods(g)
    /\ pendingPodGroupPods \subseteq MemberPods /\ incompletePodGroupPods \subseteq MemberPods
    /\ podGroups \subseteq Groups
    /\ inCycle \subseteq Groups
    /\ groupCycle \in [group : Groups \cup {NoEntity}, unschedulableCount : Counts,
                       consecutiveErrorsCount : Counts, timestamp : {NoTime} \cup Time,
                       popped : SUBSET MemberPods]
    /\ unschedulableCount \in [Entities -> Counts]
    /\ consecutiveErrorsCount \in [Entities -> Counts]
    /\ backoffExpiry \in [Entities -> Expiries]
    /\ timestamp \in [Entities -> {NoTime} \cup Time]
    /\ now \in Time /\ schedulingCycle \in 0..MaxCycle
    /\ live \subseteq Pods /\ skippedBackoff \in BOOLEAN
    \* An entity the queue does not hold keeps no data, one it holds has a
    \* Timestamp; a group's data go with the scheduler while its cycle runs.
    /\ \A e \in Entities \ (Queued \cup inFlight) :
          /\ unschedulableCount[e] = 0 /\ consecutiveErrorsCount[e] = 0
          /\ backoffExpiry[e] = NoTime /\ timestamp[e] = NoTime
    /\ \A e \in (Queued \cup inFlight) \cap Entities : timestamp[e] # NoTime
    /\ groupCycle.group = NoEntity => groupCycle = NoCycle

\* Every entity is in one place at most, and a queued group is never empty.
EntityOnce ==
    /\ activeQ \cap backoffQ = {}
    /\ activeQ \cap unschedulablePods = {}
    /\ backoffQ \cap unschedulablePods = {}
    /\ \A g \in Groups : g \in Queued <=> members[g] # {}

\* Every pod the queue holds is in exactly one place: queued (in its group's
\* entity), in flight, pending, or incomplete.
PodOnce ==
    /\ QueuedPods \cap inFlight = {}
    /\ QueuedPods \cap pendingPodGroupPods = {}
    /\ QueuedPods \cap incompletePodGroupPods = {}
    /\ inFlight \cap pendingPodGroupPods = {}
    /\ inFlight \cap incompletePodGroupPods = {}
    /\ pendingPodGroupPods \cap incompletePodGroupPods = {}

\* Nothing lost, nothing kept: the pods the queue holds are exactly those
\* added and neither deleted nor Done.
NoLostPod == Held = live

\* A group is never partly in flight: while its scheduling cycle runs, no
\* member of it waits in activeQ, backoffQ or unschedulablePods -- a member
\* arriving then waits in pendingPodGroupPods, so no second entity of the
\* group appears.
NeverPartlyInFlight == groupCycle.group # NoEntity => groupCycle.group \notin Queued

\* No member is left in pendingPodGroupPods once its group's cycle has
\* ended (and it is pending only for the group whose cycle runs).
NoPendingAfterCycle == \A p \in pendingPodGroupPods : GroupOf[p] = groupCycle.group

\* The form of NoPendingAfterCycle that matters for liveness: no pending
\* member is stranded, with no cycle of its group running and no member of
\* its group queued or in flight, so that only a new member of the group
\* (or deleting the pod) would ever take it out of pendingPodGroupPods.
Stranded(p) ==
    /\ p \in pendingPodGroupPods
    /\ groupCycle.group # GroupOf[p]
    /\ GroupOf[p] \notin Queued
    /\ inFlight \cap GroupPods(GroupOf[p]) = {}
NoStrandedPending == \A p \in pendingPodGroupPods : ~Stranded(p)

\* The queue holds a group's cycle open exactly while the scheduler runs it.
InCycleIsCycle == inCycle = IF groupCycle.group = NoEntity THEN {} ELSE {groupCycle.group}

\* A member waits in incompletePodGroupPods only while its PodGroup object
\* is unknown.
IncompleteOnlyUnknown == \A p \in incompletePodGroupPods : GroupOf[p] \notin podGroups

\* After an attempt a group goes to activeQ or backoffQ, never to
\* unschedulablePods (gating, which could park it, is not modelled).
NoGroupParked == unschedulablePods \cap Groups = {}

\* Backoff: an entity in backoffQ has failed and has an expiry; no group's
\* failed cycle ever left it in activeQ while it should back off.  (That
\* durations grow with the count and the size, up to the scaled maximum,
\* is a fact of the constants: BackoffMonotone, checked once.)
I2g == \A e \in backoffQ : CountOf(unschedulableCount[e], consecutiveErrorsCount[e]) >= 1 /\ backoffExpiry[e] # NoTime
NoBackoffSkip == ~skippedBackoff

\* The failure bookkeeping on its own (R7h), from the counts, not from the
\* actions' own expiry: an entity the queue holds that has failed since it
\* last succeeded (a count above zero) has the expiry R7h gives its count
\* from its Timestamp, which is the time of that failure, for some size up
\* to its group's (the size is taken when the group fails; members may
\* join or leave since), and never beyond its group's scaled maximum; one
\* that has not failed has none.  A group's counts and Timestamp go with
\* the scheduler while its cycle runs; its entity then holds none.
Size(e) == IF e \in Groups THEN Cardinality(GroupPods(e)) ELSE 1
ExpiryAfter(e, c, size) == IF Duration(c, size) = 0 THEN NoTime ELSE timestamp[e] + Duration(c, size)
ExpiryOfCount ==
    \A e \in Queued \cup (inFlight \cap SinglePods) :
        LET c == CountOf(unschedulableCount[e], consecutiveErrorsCount[e])
        IN  /\ c = 0 => backoffExpiry[e] = NoTime
            /\ c > 0 => \E size \in 1..Size(e) : backoffExpiry[e] = ExpiryAfter(e, c, size)
            /\ backoffExpiry[e] # NoTime => backoffExpiry[e] <= timestamp[e] + MaxBackoffFor(Size(e))

\* A group's counts as the queue or, while its cycle runs, the scheduler
\* holds them; HeldGroup: the queue holds the group's entity or runs its
\* cycle.
UC(g) == IF groupCycle.group = g THEN groupCycle.unschedulableCount ELSE unschedulableCount[g]
CE(g) == IF groupCycle.group = g THEN groupCycle.consecutiveErrorsCount ELSE consecutiveErrorsCount[g]
HeldGroup(g) == g \in Queued \/ groupCycle.group = g

\* A step (StepProperties): a group's counts change only where the contract
\* changes them.  While the queue holds the group and its cycle does not
\* end, they stay as they are (Pop hands them to the scheduler, and
\* nothing else touches them; an entity that leaves the queue forgets
\* them).  The end of its cycle that requeues it sets them from those it
\* was popped with: success resets both, a rejection adds one to
\* UnschedulableCount and resets ConsecutiveErrorsCount, an error adds one
\* to ConsecutiveErrorsCount -- so a failed cycle is always counted, and a
\* count never decreases but where it is reset.  The end is named by its
\* action and status, as the scheduler hands them back: a failed cycle
\* not counted leaves a state that a success could also leave.
Counted(g, st) ==
    <<unschedulableCount'[g], consecutiveErrorsCount'[g]>> =
        CASE st = "success" -> <<0, 0>>
          [] st = "rejected" -> <<UC(g) + 1, 0>>
          [] st = "error" -> <<UC(g), CE(g) + 1>>
CountStep ==
    \A g \in Groups :
        /\ (HeldGroup(g) /\ HeldGroup(g)' /\ ~(groupCycle.group = g /\ groupCycle'.group # g)) =>
              <<UC(g), CE(g)>> = <<UC(g)', CE(g)'>>
        /\ \A st \in Statuses :
              (AddAttemptedPodGroupIfNeeded(g, st) /\ g \in Queued') => Counted(g, st)

StepProperties == [][CountStep]_vars

BackoffMonotone ==
    \A c \in 1..MaxCycle, s \in 1..Cardinality(Pods) :
        /\ Duration(c, s) <= Duration(c + 1, s)
        /\ Duration(c, s) <= Duration(c, s + 1)
        /\ Duration(c, s) <= MaxBackoffFor(s)
        /\ Duration(c, s) > 0 <=> MaxBackoff > 0
ASSUME BackoffMonotone

Invariants == TypeOK /\ EntityOnce /\ PodOnce /\ NoLostPod /\ NeverPartlyInFlight /\ NoPendingAfterCycle
              /\ NoStrandedPending /\ InCycleIsCycle /\ IncompleteOnlyUnknown /\ NoGroupParked /\ I2g /\ NoBackoffSkip
              /\ ExpiryOfCount

\* Liveness: a pending member leaves pendingPodGroupPods (FairSpec).
PendingLeadsOut == \A p \in MemberPods : p \in pendingPodGroupPods ~> p \notin pendingPodGroupPods

=============================================================================
