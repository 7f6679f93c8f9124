--------------------- MODULE SchedulingQueueGroupGates ---------------------
(***************************************************************************)
(* v1.38's group rules for a gated pod group, the podgroups profile's      *)
(* setting spec.Config.PodGroupsV138: G12 (PreEnqueue over a group stops   *)
(* at its first refused member, in MemberOrder) and G13 (a gated group's   *)
(* strategy skips its members without rejectors, unless no member is       *)
(* gated any more).  v1.37.2's rules are each one Mutation of it.          *)
(*                                                                         *)
(* A module of its own, beside SchedulingQueuePodGroups.tla (G1-G11),      *)
(* which leaves PreEnqueue gating out: G12 and G13 are about one parked    *)
(* entity and what its members answer, not about scheduling cycles,       *)
(* pending members or backoff, and the entity spec's bounds already take   *)
(* minutes without gating.  So here is one pod group's entity and nothing  *)
(* else: its members join and leave, PreEnqueue plugins start and stop     *)
(* refusing them, it fails attempts, and events evaluate it while it is    *)
(* parked.                                                                 *)
(*                                                                         *)
(* Abstractions.  Pods are 1..N, numbered in MemberOrder (higher priority, *)
(* more attempts, earlier Timestamp, name): the rules take the order as    *)
(* given, and each order is one numbering.  One gating plugin stands for   *)
(* every PreEnqueue plugin (schedulingGates and the others): gate[p] says  *)
(* whether it refuses p now, and every event a parked entity receives      *)
(* matches it (an event that does not is not evaluated at all, the same   *)
(* under both rules).  A member's rejectors are two flags: gateRejector,   *)
(* the gating plugin among its UnschedulablePlugins (recorded when it      *)
(* refused the member, cleared when the member is popped), and rejectors,  *)
(* any other rejecting or pending plugin (from a failed attempt).  The     *)
(* gating plugin's hint queues a member only for an event about that       *)
(* member that admits it; any other rejector's hint is a free      *)
(* choice.  Backoff is not timed: an answer "after backoff" and "queue"    *)
(* both run PreEnqueue, towards backoffQ or activeQ.  Not modelled: the    *)
(* scheduling cycle (an attempt is Pop and failure in one step), pending   *)
(* and incomplete members, the counts (SchedulingQueuePodGroups.tla has    *)
(* them).                                                                  *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    N,          \* the pods, 1..N in MemberOrder
    MaxAttempts,\* failed attempts stop here
    Mutation    \* "none" (v1.38: G12 and G13); else one deliberate change:
                \* "AskEveryMember": v1.37.2's PreEnqueue of an entity, every
                \*   member asked (G2) -- must break AskedToFirstRefused;
                \* "EveryMemberAnswers": v1.37.2's strategy (G10) for a gated
                \*   entity, no member skipped -- must break NoWakeByUnrejected;
                \* "SkipWithoutGate": G13 without its fallback, members
                \*   without rejectors skipped though no member is gated any
                \*   more -- must break NoUngatedLeftParked

ASSUME N \in Nat \ {0} /\ MaxAttempts \in Nat
ASSUME Mutation \in {"none", "AskEveryMember", "EveryMemberAnswers", "SkipWithoutGate"}

Pods == 1..N
Places == {"none", "activeQ", "backoffQ", "unschedulablePods"}
\* A member's answer to an event (spec.Strategy), least urgent first.
Skip == 0
AfterBackoff == 1
Queue == 2
Max(S) == IF S = {} THEN Skip ELSE CHOOSE s \in S : \A t \in S : t <= s

VARIABLES
    members,        \* the entity's members (the pods of the group the queue holds)
    place,          \* where the entity is ("none": the queue holds no member)
    gate,           \* [Pods -> BOOLEAN]: the gating plugin refuses the pod now
    gating,         \* [Pods -> BOOLEAN]: the member's GatingPlugin is set
    gateRejector,   \* [Pods -> BOOLEAN]: the gating plugin is among its UnschedulablePlugins
    rejectors,      \* [Pods -> BOOLEAN]: some other rejecting or pending plugin
    attempts,       \* failed attempts so far (the bound)
    lastMembers,    \* ghost: the members when PreEnqueue last ran
    lastAsked,      \* ghost: the members it asked
    lastRefused,    \* ghost: those it refused
    wokeByUnrejected, \* ghost: an evaluation requeued the entity, a member gated,
                      \* on the answers of members without rejectors alone
    leftUngated     \* ghost: an evaluation left it parked, no member gated and
                    \* one without rejectors

vars == <<members, place, gate, gating, gateRejector, rejectors, attempts,
          lastMembers, lastAsked, lastRefused, wokeByUnrejected, leftUngated>>
ghosts == <<lastMembers, lastAsked, lastRefused>>

(***************************************************************************)
(* PreEnqueue over the entity with members M, towards `to' (activeQ or     *)
(* backoffQ).  G12: the members are asked in MemberOrder up to the first   *)
(* refused one, which gates the entity: it waits in unschedulablePods.     *)
(* A member asked and refused gets the gating plugin as its GatingPlugin   *)
(* and among its rejectors; one asked and admitted loses its GatingPlugin  *)
(* (its rejectors stay); one not asked keeps both as they were.            *)
(* "AskEveryMember" asks every member (v1.37.2).  G is the gate PreEnqueue *)
(* sees (the next state's, for an event that changed it).                  *)
(***************************************************************************)
Asked(M, G) ==
    IF Mutation = "AskEveryMember" THEN M
    ELSE {m \in M : \A k \in M : k < m => ~G[k]}
PreEnqueue(M, to, G) ==
    LET A == Asked(M, G)
        refused == {m \in A : G[m]}
    IN  /\ gating' = [p \in Pods |-> IF p \in A THEN G[p] ELSE gating[p]]
        /\ gateRejector' = [p \in Pods |-> IF p \in refused THEN TRUE ELSE gateRejector[p]]
        /\ place' = IF refused # {} THEN "unschedulablePods" ELSE to
        /\ lastMembers' = M /\ lastAsked' = A /\ lastRefused' = refused

\* A member without rejectors (G13 skips it in a gated entity).
Unrejected(m) == ~gateRejector[m] /\ ~rejectors[m]

(***************************************************************************)
(* An event that the parked entity's gating plugin registered, about       *)
(* member `about' (0: about no member), evaluates the entity (G10, G13).   *)
(* Each member answers: the gating plugin's hint queues it if the event is *)
(* about it (the plugin admits it now: Admit); another rejector's hint     *)
(* answers as it likes (Q: the members whose other rejectors queue them);  *)
(* a member without rejectors answers after backoff (R16).  G13: in the    *)
(* gated entity a member without rejectors is skipped, but if no member   *)
(* is gated any more (none has a GatingPlugin) and one was skipped, the    *)
(* strategy is at least after backoff.  A strategy other than Skip runs    *)
(* PreEnqueue.                                                             *)
(***************************************************************************)
Answer(m, about, Q) ==
    IF Unrejected(m) THEN AfterBackoff
    ELSE IF (gateRejector[m] /\ m = about) \/ m \in Q THEN Queue ELSE Skip
Strategy(about, Q) ==
    LET skipping == Mutation # "EveryMemberAnswers"
        asked == IF skipping THEN {m \in members : ~Unrejected(m)} ELSE members
        skipped == members \ asked
        sawGated == \E m \in members : gating[m]
        best == Max({Answer(m, about, Q) : m \in asked})
    IN  IF skipping /\ ~sawGated /\ skipped # {} /\ Mutation # "SkipWithoutGate"
        THEN Max({best, AfterBackoff}) ELSE best
\* The strategy of the members with rejectors alone: what the ghosts judge
\* an evaluation by, apart from the strategy G13 computes.
RejectorsStrategy(about, Q) == Max({Answer(m, about, Q) : m \in {k \in members : ~Unrejected(k)}})

Evaluate(about, Q, G) ==
    LET s == Strategy(about, Q)
        woke == s # Skip
    IN  /\ wokeByUnrejected' = (wokeByUnrejected \/
              (woke /\ RejectorsStrategy(about, Q) = Skip /\ \E m \in members : gating[m]))
        /\ leftUngated' = (leftUngated \/
              (~woke /\ ~(\E m \in members : gating[m]) /\ \E m \in members : Unrejected(m)))
        /\ IF woke
           THEN PreEnqueue(members, IF s = Queue THEN "activeQ" ELSE "backoffQ", G)
           ELSE UNCHANGED <<place, gating, gateRejector, ghosts>>

(***************************************************************************)
(* Actions                                                                 *)
(***************************************************************************)

\* A pod of the group arrives with no rejectors.  The first member makes a
\* new entity, which goes through PreEnqueue towards activeQ; a later one
\* joins the entity where it is, without PreEnqueue (a parked entity's new
\* member is not asked: G13 skips it while another is gated).
Add(p) ==
    /\ p \notin members
    /\ members' = members \cup {p}
    /\ rejectors' = [rejectors EXCEPT ![p] = FALSE]
    /\ IF place = "none"
       THEN \* PreEnqueue of the new entity {p}: one member, so both
            \* rules ask it.
            LET refused == gate[p]
            IN  /\ gating' = [gating EXCEPT ![p] = refused]
                /\ gateRejector' = [gateRejector EXCEPT ![p] = refused]
                /\ place' = IF refused THEN "unschedulablePods" ELSE "activeQ"
                /\ lastMembers' = {p} /\ lastAsked' = {p}
                /\ lastRefused' = IF refused THEN {p} ELSE {}
       ELSE /\ gating' = [gating EXCEPT ![p] = FALSE]
            /\ gateRejector' = [gateRejector EXCEPT ![p] = FALSE]
            /\ UNCHANGED <<place, ghosts>>
    /\ UNCHANGED <<gate, attempts, wokeByUnrejected, leftUngated>>

\* A member leaves (G8): the entity stays where it is, gated or not, or
\* leaves the queue with its last member.
Delete(p) ==
    /\ p \in members
    /\ members' = members \ {p}
    /\ place' = IF members' = {} THEN "none" ELSE place
    /\ UNCHANGED <<gate, gating, gateRejector, rejectors, attempts, ghosts,
                   wokeByUnrejected, leftUngated>>

\* A PreEnqueue plugin starts refusing p (no event: nothing is evaluated).
Refuse(p) ==
    /\ ~gate[p]
    /\ gate' = [gate EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<members, place, gating, gateRejector, rejectors, attempts, ghosts,
                   wokeByUnrejected, leftUngated>>

\* The gating plugin stops refusing p: an update of p (G9), which evaluates
\* the entity if it is parked.
Admit(p, Q) ==
    /\ gate[p]
    /\ gate' = [gate EXCEPT ![p] = FALSE]
    /\ IF place = "unschedulablePods" /\ p \in members
       THEN UNCHANGED <<members, rejectors, attempts>> /\ Evaluate(p, Q, gate')
       ELSE UNCHANGED <<members, place, gating, gateRejector, rejectors, attempts, ghosts,
                        wokeByUnrejected, leftUngated>>

\* Another cluster event the gating plugin registered, about no member.
Move(Q) ==
    /\ place = "unschedulablePods"
    /\ Evaluate(0, Q, gate)
    /\ UNCHANGED <<members, gate, rejectors, attempts>>

\* The entity is popped and its attempt fails: every member loses its
\* rejectors (Pop clears them) and gets those of the failure (R), and the
\* entity goes to backoffQ.
Attempt(R) ==
    /\ place = "activeQ"
    /\ attempts < MaxAttempts
    /\ attempts' = attempts + 1
    /\ rejectors' = [p \in Pods |-> p \in R]
    /\ gateRejector' = [p \in Pods |-> FALSE]
    /\ place' = "backoffQ"
    /\ UNCHANGED <<members, gate, gating, ghosts, wokeByUnrejected, leftUngated>>

\* Its backoff over, the entity leaves backoffQ through PreEnqueue.
FlushBackoffQCompleted ==
    /\ place = "backoffQ"
    /\ PreEnqueue(members, "activeQ", gate)
    /\ UNCHANGED <<members, gate, rejectors, attempts, wokeByUnrejected, leftUngated>>

Init ==
    /\ members = {} /\ place = "none"
    /\ gate \in [Pods -> BOOLEAN]
    /\ gating = [p \in Pods |-> FALSE]
    /\ gateRejector = [p \in Pods |-> FALSE]
    /\ rejectors = [p \in Pods |-> FALSE]
    /\ attempts = 0
    /\ lastMembers = {} /\ lastAsked = {} /\ lastRefused = {}
    /\ wokeByUnrejected = FALSE /\ leftUngated = FALSE

Next ==
    \/ \E p \in Pods : Add(p)
    \/ \E p \in Pods : Delete(p)
    \/ \E p \in Pods : Refuse(p)
    \/ \E p \in Pods, Q \in SUBSET Pods : Admit(p, Q)
    \/ \E Q \in SUBSET Pods : Move(Q)
    \/ \E R \in SUBSET members : R # {} /\ Attempt(R)
    \/ FlushBackoffQCompleted

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(***************************************************************************)
(* Invariants                                                              *)
(***************************************************************************)

TypeOK ==
    /\ members \subseteq Pods /\ place \in Places
    /\ gate \in [Pods -> BOOLEAN] /\ gating \in [Pods -> BOOLEAN]
    /\ gateRejector \in [Pods -> BOOLEAN] /\ rejectors \in [Pods -> BOOLEAN]
    /\ attempts \in 0..MaxAttempts
    /\ lastMembers \subseteq Pods /\ lastAsked \subseteq lastMembers /\ lastRefused \subseteq lastAsked
    /\ wokeByUnrejected \in BOOLEAN /\ leftUngated \in BOOLEAN
    /\ (place = "none") <=> (members = {})

\* G12: the last PreEnqueue asked a prefix of the members in MemberOrder,
\* and refused at most one member, the last it asked.
AskedToFirstRefused ==
    /\ \A m \in lastAsked, k \in lastMembers : k < m => k \in lastAsked
    /\ Cardinality(lastRefused) <= 1
    /\ \A r \in lastRefused, m \in lastAsked : m <= r

\* An entity in activeQ or backoffQ was not refused when PreEnqueue last
\* ran over it; a parked one was.
ParkedIsRefused ==
    /\ place \in {"activeQ", "backoffQ"} => lastRefused = {}
    /\ place = "unschedulablePods" => lastRefused # {}

\* G13: no evaluation requeued an entity in which a member was gated on the
\* answer of members without rejectors alone.
NoWakeByUnrejected == ~wokeByUnrejected

\* G13's fallback: no evaluation left a parked entity as it was when no
\* member was gated any more and a member without rejectors was skipped.
NoUngatedLeftParked == ~leftUngated

Invariants == TypeOK /\ AskedToFirstRefused /\ ParkedIsRefused /\ NoWakeByUnrejected /\ NoUngatedLeftParked
=============================================================================
