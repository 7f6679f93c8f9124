package promcollector_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/impl/promcollector"
	"github.com/schedq/schedq/spec"
)

// Serving a queue's metrics on /metrics, as kube-scheduler does.
func Example() {
	q, err := impl.New(spec.DefaultConfig(nil))
	if err != nil {
		panic(err)
	}
	defer q.Close()
	_ = q.Add(&spec.Pod{Namespace: "default", Name: "web-0", UID: "3f2c"})

	reg := prometheus.NewRegistry()
	reg.MustRegister(promcollector.New(q))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	srv := httptest.NewServer(mux) // a real scheduler: http.ListenAndServe(":10259", mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); !strings.HasPrefix(line, "#") {
			fmt.Println(line)
		}
	}
	// Output:
	// scheduler_pending_pods{queue="active"} 1
	// scheduler_pending_pods{queue="backoff"} 0
	// scheduler_pending_pods{queue="gated"} 0
	// scheduler_pending_pods{queue="unschedulable"} 0
	// scheduler_queue_incoming_pods_total{event="UnschedulablePodAdd",queue="active"} 1
}
