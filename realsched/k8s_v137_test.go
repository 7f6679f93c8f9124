//go:build v137 || v138

package realsched

import (
	"context"
	"errors"
	"testing"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
)

// TestOffByDefaultRefused: with a gate whose path schedq's hints profile
// leaves out turned on (or SchedulerPopFromBackoffQ turned off, or
// SchedulerPreQueueingHints turned to what the release does not ship:
// on for v1.37, off for v1.38, which models it on), the
// adapter refuses to start with ErrOffByDefault naming the gate; with the
// defaults it starts; and a pod-group call on a running adapter is refused
// and counted, never half-done.
func TestOffByDefaultRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		gates map[string]bool
	}{
		{"GenericWorkload", map[string]bool{string(features.GenericWorkload): true}},
		{"CompositePodGroup", map[string]bool{string(features.GenericWorkload): true, string(features.TopologyAwareWorkloadScheduling): true, string(features.CompositePodGroup): true}},
		{"SchedulerAsyncAPICalls", map[string]bool{string(features.SchedulerAsyncAPICalls): true}},
		{"SchedulerPreQueueingHints", map[string]bool{string(features.SchedulerPreQueueingHints): !preQueueing}},
		{"SchedulerPopFromBackoffQ", map[string]bool{string(features.SchedulerPopFromBackoffQ): false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(c.gates); err != nil {
				t.Fatalf("setting %v: %v", c.gates, err)
			}
			defer func() {
				if err := setGates(); err != nil {
					t.Fatal(err)
				}
			}()
			_, err := NewAdapter(context.Background(), nil, nil, time.Second, 10*time.Second, Correct)
			if !errors.Is(err, ErrOffByDefault) {
				t.Fatalf("NewAdapter with %v: %v, want ErrOffByDefault", c.gates, err)
			}
			t.Log(err)
		})
	}
	if err := setGates(); err != nil {
		t.Fatal(err)
	}
	a, err := NewAdapter(context.Background(), nil, nil, time.Second, 10*time.Second, Correct)
	if err != nil {
		t.Fatalf("NewAdapter with the default gates: %v", err)
	}
	defer a.Close()
	if cfg, err := Config(context.Background(), nil, func(error) {}); err != nil || cfg.PreQueueing != preQueueing {
		t.Errorf("the adapter's config: PreQueueing %v (%v); the release's default gates: %v", cfg.PreQueueing, err, preQueueing)
	}
	if err := a.AddAttemptedPodGroupIfNeeded(klog.Background(), nil, 0, nil); !errors.Is(err, ErrOffByDefault) {
		t.Errorf("AddAttemptedPodGroupIfNeeded: %v, want ErrOffByDefault", err)
	}
	addPodGroupRefused(a)
	if _, err := a.PatchPodStatus(nil, nil, nil); !errors.Is(err, ErrOffByDefault) {
		t.Errorf("PatchPodStatus: %v, want ErrOffByDefault", err)
	}
	if a.Errors() != 3 {
		t.Errorf("%d refusals counted, want 3", a.Errors())
	}
}
