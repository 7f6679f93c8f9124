// Package promcollector exports a schedq queue's metrics (R14) to
// Prometheus under the names and labels upstream kube-scheduler uses, so
// that dashboards and alerts written for the kube-scheduler's queue work on
// a scheduler that embeds schedq:
//
//	scheduler_pending_pods{queue}                    gauge
//	scheduler_queue_incoming_pods_total{queue,event} counter
//	scheduler_unschedulable_pods{plugin}             gauge (hints profile)
//
// The queue keeps its metrics itself (impl.PriorityQueue.Metrics, a
// snapshot taken under its lock); the Collector reads that snapshot at every
// scrape, so the queue's hot paths never touch Prometheus. Register it once
// per queue:
//
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(promcollector.New(q))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// The event label is bounded by the queue (impl.MaxEventLabels, the rest
// under impl.OverflowEventLabel), so a scrape has at most a few hundred
// series whatever events the caller raises.
package promcollector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/schedq/schedq/impl"
)

// Source is what the Collector reads: *impl.PriorityQueue.
type Source interface {
	Metrics() impl.MetricsSnapshot
}

// Collector is a prometheus.Collector for one queue.
type Collector struct {
	src      Source
	pending  *prometheus.Desc
	incoming *prometheus.Desc
	plugins  *prometheus.Desc
}

var _ prometheus.Collector = (*Collector)(nil)

// New returns a Collector of src's metrics. constLabels, if any, are added
// to every series: a process with several queues (one per scheduler
// profile, say) tells them apart with a label of its own, as the queue
// names are fixed.
func New(src Source, constLabels ...prometheus.Labels) *Collector {
	var cl prometheus.Labels
	if len(constLabels) > 0 {
		cl = prometheus.Labels{}
		for _, l := range constLabels {
			for k, v := range l {
				cl[k] = v
			}
		}
	}
	return &Collector{
		src: src,
		pending: prometheus.NewDesc(impl.MetricPendingPods,
			"Pods waiting in the scheduling queue, by queue: active (activeQ), backoff (backoffQ), unschedulable (unschedulablePods, gated pods apart), gated (pods a PreEnqueue plugin refuses; always 0 in the classic profile). Pods being scheduled are not counted.",
			[]string{"queue"}, cl),
		incoming: prometheus.NewDesc(impl.MetricQueueIncomingPods,
			"Pods that entered a queue, by queue and by the event or operation that brought them there.",
			[]string{"queue", "event"}, cl),
		plugins: prometheus.NewDesc(impl.MetricUnschedulablePods,
			"Queued pods (not being scheduled) that each plugin rejected, in the queueing-hints profile; absent in the classic profile.",
			[]string{"plugin"}, cl),
	}
}

// Describe sends the metric descriptions.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pending
	ch <- c.incoming
	ch <- c.plugins
}

// Collect sends one snapshot of the queue's metrics: every queue's pending
// pods, and every (queue, event) series that counted a pod.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	m := c.src.Metrics()
	for queue, n := range m.PendingPods {
		ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(n), queue)
	}
	for k, n := range m.IncomingPods {
		ch <- prometheus.MustNewConstMetric(c.incoming, prometheus.CounterValue, float64(n), k.Queue, k.Event)
	}
	for plugin, n := range m.UnschedulablePods {
		ch <- prometheus.MustNewConstMetric(c.plugins, prometheus.GaugeValue, float64(n), plugin)
	}
}
