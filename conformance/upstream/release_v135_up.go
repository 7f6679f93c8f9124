//go:build !k8s133 && !k8s134

package upstream

import (
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// From v1.35 PreEnqueue plugins are fwk.PreEnqueuePlugin, and the metrics
// recorder is passed by pointer.

func withPreEnqueuePlugins(plugins ...preEnqueuePlugin) queue.Option {
	return queue.WithPreEnqueuePluginMap(byName[fwk.PreEnqueuePlugin](plugins))
}

func withMetricsRecorder(r *metrics.MetricAsyncRecorder) queue.Option {
	return queue.WithMetricsRecorder(r)
}

// From v1.35 a nomination is an fwk.NominatingInfo.
func nominatingInfo(override bool, node string) *fwk.NominatingInfo {
	if override {
		return &fwk.NominatingInfo{NominatingMode: fwk.ModeOverride, NominatedNodeName: node}
	}
	return &fwk.NominatingInfo{NominatingMode: fwk.ModeNoop, NominatedNodeName: node}
}
