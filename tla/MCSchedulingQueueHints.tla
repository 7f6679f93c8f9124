---------------------- MODULE MCSchedulingQueueHints ----------------------
(***************************************************************************)
(* Constant values for the TLC configurations of SchedulingQueueHints that *)
(* TLC cannot read from a .cfg file itself: functions, tuples and records. *)
(* agreement_test.go mirrors them by name.                                 *)
(***************************************************************************)
EXTENDS SchedulingQueueHints

\* All pods of equal priority.
EqualPriority == [p \in Pods |-> 0]

\* "a" before "b" before anything else.
DistinctPriority == [p \in Pods |-> CASE p = "a" -> 2 [] p = "b" -> 1 [] OTHER -> 0]

\* P1 registered E1 and the add of an assigned pod; P2 registered E1, E2 and
\* the update of an assigned pod; the PreEnqueue plugin registered the label
\* update of the pod itself.  Nobody registered anything else.
HintsRegistration ==
    [pl \in AllPlugins |-> CASE pl = "P1" -> {"E1", AssignedPodAdd}
                             [] pl = "P2" -> {"E1", "E2", AssignedPodUpdate}
                             [] OTHER -> {UpdatePodLabel}]

\* The hints: P1 answers Queue for E1 and an assigned pod's add; P2 answers
\* QueueSkip for E1 and Queue for E2 and an assigned pod's update; the
\* PreEnqueue plugin answers Queue for the label update.
HintsQueue == {<<"P1", "E1">>, <<"P2", "E2">>, <<Gate, UpdatePodLabel>>,
               <<"P1", AssignedPodAdd>>, <<"P2", AssignedPodUpdate>>}

\* A failure reports no plugin (an error), P1 or P2 as unschedulable, or P2
\* as pending.
HintsFailures ==
    {[unschedulable |-> {}, pending |-> {}],
     [unschedulable |-> {"P1"}, pending |-> {}],
     [unschedulable |-> {"P2"}, pending |-> {}],
     [unschedulable |-> {}, pending |-> {"P2"}]}

\* Only unschedulable verdicts, one plugin each (smaller).
HintsFailuresSmall ==
    {[unschedulable |-> {}, pending |-> {}],
     [unschedulable |-> {"P1"}, pending |-> {}],
     [unschedulable |-> {}, pending |-> {"P2"}]}
\* The pre-queueing hints (R20) of HintsPreQueue.cfg: P2's hint for E1
\* names "a", P2's hint for E2 names "b"; P1's registrations have none
\* (all pods).  So E1 narrows P2 and not P1: every parked pod is
\* evaluated, P2 asked about "a" alone (R22); E2, registered by P2 only,
\* evaluates "b" alone (R21), leaving a pod of P2 other than "b" parked
\* although P2's hint answers Queue for it: an unsound pre-queueing hint,
\* which the contract allows (I8).
HintsPreQueue == {<<"P2", "E1", {"a"}>>, <<"P2", "E2", {"b"}>>}
=============================================================================
