//go:build !k8s133 && !k8s134

package upstream

import (
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// From v1.35 PreEnqueue plugins are fwk.PreEnqueuePlugin by name, and the
// metrics recorder is passed by pointer.

func withPreEnqueuePlugins(plugins ...preEnqueuePlugin) queue.Option {
	m := map[string]fwk.PreEnqueuePlugin{}
	for _, p := range plugins {
		m[p.Name()] = p
	}
	return queue.WithPreEnqueuePluginMap(map[string]map[string]fwk.PreEnqueuePlugin{SchedulerName: m})
}

func withMetricsRecorder(r *metrics.MetricAsyncRecorder) queue.Option {
	return queue.WithMetricsRecorder(r)
}
