-------------------- MODULE MCSchedulingQueuePodGroups --------------------
(***************************************************************************)
(* Constant values for the TLC configurations of SchedulingQueuePodGroups  *)
(* that a .cfg file cannot spell: the pods' groups and the symmetry.  A    *)
(* configuration names the members of the one pod group "g" (Members) and  *)
(* the pods outside groups (Singles); model values where symmetry is used. *)
(***************************************************************************)
EXTENDS SchedulingQueuePodGroups, TLC

CONSTANTS Members, Singles

ASSUME Members \cap Singles = {}

MCPods == Members \cup Singles
OneGroup == [p \in Pods |-> IF p \in Members THEN "g" ELSE NoGroup]

\* The members of "g" are interchangeable: nothing in the spec tells them
\* apart (no priorities).  Not for liveness (TLC may miss violations).
MemberSymmetry == Permutations(Members)
=============================================================================
