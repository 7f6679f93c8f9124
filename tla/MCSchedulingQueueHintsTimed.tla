-------------------- MODULE MCSchedulingQueueHintsTimed --------------------
EXTENDS MCSchedulingQueueHints, SchedulingQueueHintsTimed
=============================================================================
