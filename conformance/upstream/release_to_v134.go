//go:build k8s133 || k8s134

package upstream

import "k8s.io/kubernetes/pkg/scheduler/framework"

// Up to v1.34 a nomination is a framework.NominatingInfo.

func nominatingInfo(override bool, node string) *framework.NominatingInfo {
	if override {
		return &framework.NominatingInfo{NominatingMode: framework.ModeOverride, NominatedNodeName: node}
	}
	return &framework.NominatingInfo{NominatingMode: framework.ModeNoop, NominatedNodeName: node}
}
