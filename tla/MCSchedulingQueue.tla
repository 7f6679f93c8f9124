------------------------- MODULE MCSchedulingQueue -------------------------
(***************************************************************************)
(* Constant values for the TLC configurations (the .cfg files) that TLC cannot read *)
(* from a .cfg file itself: functions and sets of sets.                    *)
(***************************************************************************)
EXTENDS SchedulingQueue

\* All pods of equal priority: Pop chooses among ties by Timestamp, and
\* between equal Timestamps nondeterministically.
EqualPriority == [p \in Pods |-> 0]

\* "a" before "b" before anything else.
DistinctPriority == [p \in Pods |-> CASE p = "a" -> 2 [] p = "b" -> 1 [] OTHER -> 0]

\* P1 registered E1; nobody registered E2; P2 registered nothing, so a pod
\* only P2 rejected waits for the wildcard (an Activate, or the leftover flush).
Registration == [pl \in Plugins |-> IF pl = "P1" THEN {"E1"} ELSE {}]

\* Every set of rejectors, the empty one included (a failure no plugin
\* reported, e.g. an API error).
AllRejectorSets == SUBSET Plugins

SingleRejectorSets == {{}} \cup {{pl} : pl \in Plugins}
=============================================================================
