//go:build k8s134 || k8s135 || k8s136

package upstream

import fwk "k8s.io/kube-scheduler/framework"

// less is the default PrioritySort order: priority, then Timestamp. From
// v1.34 to v1.36 it compares fwk.QueuedPodInfo.
func less(a, b fwk.QueuedPodInfo) bool {
	pa, pb := priority(a.GetPodInfo().GetPod()), priority(b.GetPodInfo().GetPod())
	return pa > pb || pa == pb && a.GetTimestamp().Before(b.GetTimestamp())
}
