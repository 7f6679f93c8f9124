-------------------- MODULE MCSchedulingQueuePodGroups --------------------
(***************************************************************************)
(* Constant values for the TLC configurations of SchedulingQueuePodGroups  *)
(* that a .cfg file cannot spell: the pods' groups and the symmetry.  A    *)
(* configuration names the members of pod group "g" (Members), those of a  *)
(* second pod group "h" (MembersH, {} in a bound of one group) and the     *)
(* pods outside groups (Singles); model values where symmetry is used.     *)
(***************************************************************************)
EXTENDS SchedulingQueuePodGroups, TLC

CONSTANTS Members, MembersH, Singles

ASSUME Members \cap Singles = {} /\ MembersH \cap (Members \cup Singles) = {}

MCPods == Members \cup MembersH \cup Singles
\* GroupOf of a bound of one group, and of two.
OneGroup == [p \in Pods |-> IF p \in Members THEN "g" ELSE NoGroup]
TwoGroups == [p \in Pods |-> IF p \in Members THEN "g" ELSE IF p \in MembersH THEN "h" ELSE NoGroup]

\* The members of a group are interchangeable: nothing in the spec tells
\* them apart (no priorities).  The groups are not (their names differ), so
\* a permutation moves the members of one group only.  Not for liveness
\* (TLC may miss violations).
MemberSymmetry == Permutations(Members) \cup Permutations(MembersH)
=============================================================================
