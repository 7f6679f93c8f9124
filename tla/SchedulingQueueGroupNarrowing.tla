-------------------- MODULE SchedulingQueueGroupNarrowing --------------------
(***************************************************************************)
(* v1.38's G14, pre-queueing hints over groups: the podgroups profile with *)
(* spec.Config.PodGroupsV138 and spec.Config.PreQueueing. A move request   *)
(* that every plugin of its event narrowed evaluates only the parked       *)
(* entities of the groups of named pods the queue holds, each once, and    *)
(* leaves every other parked entity as it is; a request some plugin did    *)
(* not narrow evaluates every parked entity (G10); in an evaluated entity  *)
(* a member asks a narrowed plugin only if that plugin named it (R22).     *)
(*                                                                         *)
(* A module of its own, beside SchedulingQueuePodGroups.tla (G1-G11) and   *)
(* SchedulingQueueGroupGates.tla (G12, G13): G14 is about which parked     *)
(* entities one move request evaluates and which rejectors their members   *)
(* ask, not about cycles, pending members, backoff or gating. R20-R22 for  *)
(* pods queued alone are in SchedulingQueueHints.tla.                      *)
(*                                                                         *)
(* Abstractions. The pods are fixed: 1 and 2 are the members of g1; 3 is   *)
(* g2's member the queue holds; 4 is a pod of no group the queue holds     *)
(* (queued alone: its place is SchedulingQueueHints.tla's business); 5 is  *)
(* a member of g2 the queue no longer holds (bound). The contract knows a  *)
(* pod's group only while it holds the pod, so naming 4 or 5 selects no    *)
(* entity. Three plugins: A and B register every event with a pre-queueing *)
(* hint, which names a set of pods (possibly none): A any, B only held     *)
(* members (what 4 and 5 add, A's names show; a quarter of the move        *)
(* requests keeps TLC's time under a minute); C registers some events,     *)
(* without a pre-queueing hint, so a request for an event C registered is  *)
(* not narrowed. A member's rejectors are at most one plugin (more only    *)
(* add the answers of one-plugin members). Every queueing hint a member    *)
(* asks answers Queue, so that what moves is decided by which entities are *)
(* evaluated and which rejectors are asked alone; a rejector not asked, or *)
(* whose plugin did not register the event, answers QueueSkip; a member    *)
(* without rejectors answers after backoff (R16). No gating (G13 is        *)
(* SchedulingQueueGroupGates.tla's), no time: backoffQ is left by a flush. *)
(* An attempt is Pop and failure in one step.                              *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Mutation    \* "none" (v1.38: G14); else one deliberate change:
                \* "EvaluateEveryGroup": a narrowed request evaluates every
                \*   parked entity (mutant pg138-narrowed-move-evaluates-
                \*   every-group) -- must break UnnamedEntityLeftAsIs;
                \* "AskUnnamed": a member asks its narrowed rejectors
                \*   whether or not they named it (mutant pg138-member-asks-
                \*   a-plugin-that-did-not-name-it) -- must break
                \*   NoWakeByUnnamedMember

ASSUME Mutation \in {"none", "EvaluateEveryGroup", "AskUnnamed"}

Pods == 1..5
Groups == {"g1", "g2"}
Group == [p \in Pods |-> CASE p \in {1, 2} -> "g1" [] p \in {3, 5} -> "g2" [] OTHER -> "none"]
Held == {1, 2, 3, 4}
Members(g) == {p \in Held : Group[p] = g}
Plugins == {"A", "B", "C"}
Narrowing == {"A", "B"}         \* the plugins with a pre-queueing hint
RejectorChoices == {{}, {"A"}, {"B"}, {"C"}}
Places == {"activeQ", "backoffQ", "unschedulablePods"}
\* A member's answer (spec.Strategy), least urgent first.
Skip == 0
AfterBackoff == 1
Queue == 2
Max(S) == IF S = {} THEN Skip ELSE CHOOSE s \in S : \A t \in S : t <= s

VARIABLES
    place,              \* [Groups -> Places]: where each group's entity is
    rejectors,          \* [Held -> RejectorChoices]: a member's rejecting plugins
    unnamedEvaluated,   \* ghost: a narrowed request evaluated (or moved) a
                        \* parked entity of no named held pod
    namedSkipped,       \* ghost: a request left unevaluated a parked entity
                        \* it should have evaluated
    wokeByUnnamed       \* ghost: an evaluated entity went to activeQ on the
                        \* answer of a narrowed plugin that had not named the
                        \* member asking it

vars == <<place, rejectors, unnamedEvaluated, namedSkipped, wokeByUnnamed>>

(***************************************************************************)
(* A move request: C registered its event or not (c), and A and B named    *)
(* the pods named["A"], named["B"].  It is narrowed when every plugin of   *)
(* its event has a pre-queueing hint, that is when C did not register it.  *)
(* The plugins narrowed are A and B in both cases (R22 holds either way).  *)
(***************************************************************************)
Registers(pl, c) == pl \in Narrowing \/ c

\* G14's selection, as the queue makes it: the groups of the named pods it
\* holds, one entry per group however many of its pods were named.
NamedGroups(named) == {Group[p] : p \in {q \in named["A"] \cup named["B"] : q \in Held}} \ {"none"}

\* The parked entities the request evaluates.
Evaluated(c, named) ==
    {g \in Groups : place[g] = "unschedulablePods" /\
                    (c \/ Mutation = "EvaluateEveryGroup" \/ g \in NamedGroups(named))}

\* R22: member m asks rejector pl when pl registered the event and, if pl
\* narrowed, named m.
Asks(pl, m, c, named) ==
    /\ Registers(pl, c)
    /\ (pl \in Narrowing /\ Mutation # "AskUnnamed") => m \in named[pl]

\* R16 under R22: a member without rejectors after backoff; one with, Queue
\* if it asks a rejector (whose hint answers Queue), else Skip.
Answer(m, c, named) ==
    IF rejectors[m] = {} THEN AfterBackoff
    ELSE IF \E pl \in rejectors[m] : Asks(pl, m, c, named) THEN Queue
    ELSE Skip

\* G10: the entity's strategy is its members' most urgent answer.
Strategy(g, c, named) == Max({Answer(m, c, named) : m \in Members(g)})

\* The strategy R22 gives: a member asks a plugin that registered the event,
\* a narrowed one only if it named the member (what NoWakeByUnnamedMember
\* judges Strategy by).
NamedAnswer(m, c, named) ==
    IF rejectors[m] = {} THEN AfterBackoff
    ELSE IF \E pl \in rejectors[m] : Registers(pl, c) /\ (pl \in Narrowing => m \in named[pl])
         THEN Queue ELSE Skip
NamedStrategy(g, c, named) == Max({NamedAnswer(m, c, named) : m \in Members(g)})

Target(s) == IF s = Queue THEN "activeQ" ELSE "backoffQ"

(***************************************************************************)
(* Actions                                                                 *)
(***************************************************************************)

\* Entity g is popped and its attempt fails: each member gets the
\* rejectors R gives it ([Members(g) -> RejectorChoices]), at least one
\* member has some, and the entity waits in unschedulablePods.
Fail(g, R) ==
    /\ place[g] = "activeQ"
    /\ \E m \in DOMAIN R : R[m] # {}
    /\ place' = [place EXCEPT ![g] = "unschedulablePods"]
    /\ rejectors' = [m \in Held |-> IF m \in Members(g) THEN R[m] ELSE rejectors[m]]
    /\ UNCHANGED <<unnamedEvaluated, namedSkipped, wokeByUnnamed>>

\* Its backoff over, entity g leaves backoffQ for activeQ.
Flush(g) ==
    /\ place[g] = "backoffQ"
    /\ place' = [place EXCEPT ![g] = "activeQ"]
    /\ UNCHANGED <<rejectors, unnamedEvaluated, namedSkipped, wokeByUnnamed>>

\* A move request (R4h over entities, G10, G14).  Each evaluated entity
\* goes where its strategy says; the others stay.  The ghosts judge it by
\* the rule's own words (the invariants below), not by Evaluated.
Move(c, named) ==
    LET E == Evaluated(c, named)
        narrowed == ~c
        chosen == {g \in Groups : place[g] = "unschedulablePods" /\
                                  (~narrowed \/ \E p \in Held : Group[p] = g /\ p \in named["A"] \cup named["B"])}
    IN  /\ \E g \in Groups : place[g] = "unschedulablePods"
        /\ place' = [g \in Groups |->
                        IF g \in E /\ Strategy(g, c, named) # Skip
                        THEN Target(Strategy(g, c, named)) ELSE place[g]]
        /\ UNCHANGED rejectors
        /\ unnamedEvaluated' = (unnamedEvaluated \/ (narrowed /\ (E \ chosen) # {}))
        /\ namedSkipped' = (namedSkipped \/ (chosen \ E) # {})
        /\ wokeByUnnamed' = (wokeByUnnamed \/
              \E g \in E : Strategy(g, c, named) = Queue /\ NamedStrategy(g, c, named) # Queue)

Init ==
    /\ place = [g \in Groups |-> "activeQ"]
    /\ rejectors = [m \in Held |-> {}]
    /\ unnamedEvaluated = FALSE /\ namedSkipped = FALSE /\ wokeByUnnamed = FALSE

Next ==
    \/ \E g \in Groups : \E R \in [Members(g) -> RejectorChoices] : Fail(g, R)
    \/ \E g \in Groups : Flush(g)
    \/ \E c \in BOOLEAN, nA \in SUBSET Pods, nB \in SUBSET {1, 2, 3} :
           Move(c, [pl \in Narrowing |-> IF pl = "A" THEN nA ELSE nB])

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(***************************************************************************)
(* Invariants                                                              *)
(***************************************************************************)

TypeOK ==
    /\ place \in [Groups -> Places]
    /\ rejectors \in [Held -> RejectorChoices]
    /\ unnamedEvaluated \in BOOLEAN /\ namedSkipped \in BOOLEAN /\ wokeByUnnamed \in BOOLEAN

\* G14: a narrowed move request never evaluated a parked entity none of
\* whose held pods a plugin named (it stays as it is, however its members
\* would answer).
UnnamedEntityLeftAsIs == ~unnamedEvaluated

\* G14 and G10: a narrowed request evaluated every parked entity of a named
\* held pod, and one not narrowed every parked entity.
NamedEntityEvaluated == ~namedSkipped

\* G14, R22: no evaluated entity was queued on the answer of a member that
\* asked a narrowed plugin that did not name it.
NoWakeByUnnamedMember == ~wokeByUnnamed

\* An entity waits in unschedulablePods only with a member some plugin
\* rejected (a failure without rejectors goes to backoffQ).
ParkedHasRejector ==
    \A g \in Groups : place[g] = "unschedulablePods" => \E m \in Members(g) : rejectors[m] # {}
=============================================================================
