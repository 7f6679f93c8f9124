package realsched

import (
	"fmt"
	"math/rand"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The workloads, modelled on scheduler_perf's of the same names, at any
// size: nodes and pods as given (scheduler_perf's SchedulingBasic is 5,000
// pods on 500 nodes).

// SchedulingBasic: every pod fits; the queue is a small part of the work.
func SchedulingBasic(nodes, pods int) Workload {
	return Workload{Name: "SchedulingBasic", Nodes: nodes, Pods: pods, Run: func(e *Env) error {
		e.PreloadNodes(0, nodes, 4)
		e.Start()
		if err := e.CreateBasicPods(pods); err != nil {
			return err
		}
		return nil
	}}
}

// Unschedulable: half the nodes exist at first, so half the pods park in
// unschedulablePods; the other nodes are then added one by one and every
// node add moves them (through the scheduler's preCheck). A tenth more
// pods ask for more than any node has and stay parked throughout.
func Unschedulable(nodes, pods int) Workload {
	return Workload{Name: "Unschedulable", Nodes: nodes, Pods: pods, Run: func(e *Env) error {
		per := int64((pods + nodes - 1) / nodes) // cores per node: a pod takes one
		for i := 0; i < nodes/2; i++ {
			e.Preload(Node(fmt.Sprintf("node-%d", i), per))
		}
		var big []runtime.Object
		for i := 0; i < pods/10; i++ {
			big = append(big, Pod(fmt.Sprintf("big-%d", i), 1000*1000, 0))
		}
		e.Preload(big...)
		e.Start()
		for i := 0; i < pods; i++ {
			p := Pod(fmt.Sprintf("p-%d", i), 1000, 0)
			e.Must(p)
			if err := e.CreatePod(p); err != nil {
				return err
			}
		}
		e.WaitBound(int(per)*(nodes/2), 30*time.Second)
		e.WaitQuiet(time.Second) // the others are parked by now
		for i := nodes / 2; i < nodes; i++ {
			if err := e.CreateNode(Node(fmt.Sprintf("node-%d", i), per)); err != nil {
				return err
			}
			time.Sleep(2 * time.Millisecond)
		}
		return nil
	}}
}

// MixedChurn: while the pods are created and scheduled, nodes are added,
// relabelled and deleted, pods that cannot fit come and go, and pending
// pods are relabelled (a pod update the queue sees).
func MixedChurn(nodes, pods int) Workload {
	return Workload{Name: "MixedChurn", Nodes: nodes, Pods: pods, Run: func(e *Env) error {
		e.PreloadNodes(0, nodes, 4)
		var big []runtime.Object
		for i := 0; i < pods/20; i++ {
			big = append(big, Pod(fmt.Sprintf("big-%d", i), 1000*1000, 0))
		}
		e.Preload(big...)
		e.Start()
		stop := make(chan struct{})
		churned := make(chan error, 1)
		go func() {
			rng := rand.New(rand.NewSource(1))
			for i := 0; ; i++ {
				select {
				case <-stop:
					churned <- nil
					return
				case <-time.After(2 * time.Millisecond):
				}
				var err error
				switch i % 5 {
				case 0:
					err = e.CreateNode(Node(fmt.Sprintf("churn-node-%d", i), 1))
				case 1:
					n := Node(fmt.Sprintf("churn-node-%d", i-1), 1)
					n.Labels["churn"] = "yes"
					err = e.UpdateNode(n)
				case 2:
					err = e.DeleteNode(fmt.Sprintf("churn-node-%d", i-2))
				case 3:
					err = e.CreatePod(Pod(fmt.Sprintf("churn-pod-%d", i), 1000*1000, 0))
				case 4:
					if err = e.DeletePod(fmt.Sprintf("churn-pod-%d", i-1)); err == nil {
						err = e.UpdatePodLabels(fmt.Sprintf("p-%d", rng.Intn(pods)), "churn", fmt.Sprint(i))
					}
				}
				if err != nil && e.Ctx().Err() == nil {
					churned <- fmt.Errorf("churn step %d: %w", i, err)
					return
				}
			}
		}()
		for i := 0; i < pods; i++ {
			p := Pod(fmt.Sprintf("p-%d", i), 100, 0)
			e.Must(p)
			if err := e.CreatePod(p); err != nil {
				close(stop)
				return err
			}
		}
		e.WaitBound(pods, 60*time.Second)
		close(stop)
		return <-churned
	}}
}

// Preemption: every node is full of low-priority pods (pods of them,
// preloaded, bound); pods/2 high-priority pods then each preempt one, are
// nominated, wait for their victim to go and are bound: the nominator is
// on the hot path.
func Preemption(nodes, pods int) Workload {
	return Workload{Name: "Preemption", Nodes: nodes, Pods: pods / 2, Run: func(e *Env) error {
		per := (pods + nodes - 1) / nodes
		for i := 0; i < nodes; i++ {
			name := fmt.Sprintf("node-%d", i)
			e.Preload(Node(name, int64(per)))
			for j := 0; j < per; j++ {
				low := Pod(fmt.Sprintf("low-%d-%d", i, j), 1000, 0)
				low.Spec.NodeName = name
				e.Preload(low)
			}
		}
		e.Start()
		for i := 0; i < pods/2; i++ {
			p := Pod(fmt.Sprintf("high-%d", i), 1000, 1000)
			e.Must(p)
			if err := e.CreatePod(p); err != nil {
				return err
			}
		}
		return nil
	}}
}

// BindFailures: the API refuses the first bind of every tenth pod (429);
// the scheduler hands the pod back (no rejecting plugin: to backoffQ) and
// retries it.
func BindFailures(nodes, pods int) Workload { return bindFailures(nodes, pods, TooManyRequests) }

// bindFailures is BindFailures with the API's answer of choice (the
// fault runs: 409 and 500 too).
func bindFailures(nodes, pods int, fault BindFault) Workload {
	name := "BindFailures"
	if fault != TooManyRequests {
		name += strings.Fields(fault.String())[0]
	}
	return Workload{Name: name, Nodes: nodes, Pods: pods, Run: func(e *Env) error {
		e.PreloadNodes(0, nodes, 4)
		fail := map[string]bool{}
		for i := 0; i < pods; i += 10 {
			fail[fmt.Sprintf("p-%d", i)] = true
		}
		e.FailBindsWith(fault, func(p *v1.Pod, attempt int) bool { return attempt == 1 && fail[p.Name] })
		e.Start()
		if err := e.CreateBasicPods(pods); err != nil {
			return err
		}
		return nil
	}}
}

// SchedulingWhileGated: a tenth of the pods carry a scheduling gate that is
// never lifted: they must not be bound (v1.33.13 runs the SchedulingGates
// PreEnqueue plugin with queueing hints off). Another twentieth carry a
// gate that is lifted once every pod is created: an update that only
// removes a gate must release the pod (R9, R17), so they must be bound, as
// must the pods never gated.
func SchedulingWhileGated(nodes, pods int) Workload {
	return Workload{Name: "SchedulingWhileGated", Nodes: nodes, Pods: pods, Run: func(e *Env) error {
		e.PreloadNodes(0, nodes, 4)
		e.Start()
		var lifted []string
		for i := 0; i < pods; i++ {
			p := Pod(fmt.Sprintf("p-%d", i), 100, 0)
			switch {
			case i%10 == 0:
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
				e.Gate(p)
			case i%20 == 5:
				p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/later"}}
				lifted = append(lifted, p.Name)
				e.Must(p)
			default:
				e.Must(p)
			}
			if err := e.CreatePod(p); err != nil {
				return err
			}
		}
		for _, name := range lifted {
			if err := e.UpdatePod(name, func(p *v1.Pod) { p.Spec.SchedulingGates = nil }); err != nil {
				return err
			}
		}
		return nil
	}}
}

// TolerationUpdate: every node is tainted, so every pod fails once
// (TaintToleration) and parks in unschedulablePods; then each pod is given
// the toleration. The update changes nothing spec.Pod models, so only the
// caller's whole-object verdict (podChange) requeues the pods: without it
// they would wait for the 5-minute leftover flush (issue 20 measured 0 of
// 200 bound in 40 s on schedq, all 200 in 0.3 s upstream).
func TolerationUpdate(nodes, pods int) Workload {
	return Workload{Name: "TolerationUpdate", Nodes: nodes, Pods: pods, Run: func(e *Env) error {
		taint := v1.Taint{Key: "dedicated", Value: "w", Effect: v1.TaintEffectNoSchedule}
		for i := 0; i < nodes; i++ {
			n := Node(fmt.Sprintf("node-%d", i), int64(max(4, (pods+nodes-1)/nodes)))
			n.Spec.Taints = []v1.Taint{taint}
			e.Preload(n)
		}
		e.Start()
		if err := e.CreateBasicPods(pods); err != nil {
			return err
		}
		e.WaitQuiet(time.Second) // every pod tried once and parked
		for i := 0; i < pods; i++ {
			if err := e.UpdatePod(fmt.Sprintf("p-%d", i), func(p *v1.Pod) {
				p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: taint.Key, Operator: v1.TolerationOpEqual, Value: taint.Value, Effect: taint.Effect})
			}); err != nil {
				return err
			}
		}
		return nil
	}}
}

// Workloads are every workload at one size.
func Workloads(nodes, pods int) []Workload {
	return []Workload{SchedulingBasic(nodes, pods), Unschedulable(nodes, pods), MixedChurn(nodes, pods),
		Preemption(nodes, pods), BindFailures(nodes, pods), SchedulingWhileGated(nodes, pods), TolerationUpdate(nodes, pods)}
}
