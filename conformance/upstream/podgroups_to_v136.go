//go:build k8s133 || k8s134 || k8s135 || k8s136

package upstream

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// Releases before v1.37 queue no pod groups as entities: the podgroups
// profile is refused (refusePodGroups), a pod's group is not sent, and
// none of the profile's state is read.

func hasPodGroups() bool { return false }

type poppedGroup = struct{}

func setGroup(*v1.Pod, string) {}

func groupOf(*v1.Pod) string { return "" }

func lookupPod(q *queue.PriorityQueue, p *v1.Pod) (*framework.QueuedPodInfo, bool) {
	return getPod(q, p.Name, p.Namespace)
}

func (t *Target) popGuard() error { return nil }

func (t *Target) podGroupsState(*spec.Snapshot) *spec.PodGroupsState { return nil }

func wrapProfile(t *Target) conformance.Target { return t }
