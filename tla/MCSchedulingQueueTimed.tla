---------------------- MODULE MCSchedulingQueueTimed ----------------------
EXTENDS MCSchedulingQueue, SchedulingQueueTimed
=============================================================================
