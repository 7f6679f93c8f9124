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
	return queue.WithPreEnqueuePluginMap(byName[framework.PreEnqueuePlugin](plugins))
}

func withMetricsRecorder(r *metrics.MetricAsyncRecorder) queue.Option {
	return queue.WithMetricsRecorder(*r)
}
