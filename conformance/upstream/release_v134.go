//go:build k8s134

package upstream

import (
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// v1.34 takes PreEnqueue plugins by name but of pkg/scheduler/framework's
// own interface, and the metrics recorder by value.

func withPreEnqueuePlugins(plugins ...preEnqueuePlugin) queue.Option {
	m := map[string]framework.PreEnqueuePlugin{}
	for _, p := range plugins {
		m[p.Name()] = p
	}
	return queue.WithPreEnqueuePluginMap(map[string]map[string]framework.PreEnqueuePlugin{SchedulerName: m})
}

func withMetricsRecorder(r *metrics.MetricAsyncRecorder) queue.Option {
	return queue.WithMetricsRecorder(*r)
}
