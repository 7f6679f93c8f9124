package upstream

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// ReleaseInfo is what the package knows of the Kubernetes release it is
// built against, read at run time, not written per release.
type ReleaseInfo struct {
	// Version is k8s.io/kubernetes's version in the build (e.g. v1.35.6):
	// the modfile's, or, for a local checkout, the release it is based on
	// (the version the replaced requirement names).
	Version string
	// Replace is the directory k8s.io/kubernetes is replaced with, for a
	// local checkout; empty for a release from the module proxy.
	Replace string
	// CanSwitchHintsOff: the SchedulerQueueingHints gate exists and is not
	// locked (v1.33 only), so the classic profile can run.
	CanSwitchHintsOff bool
	// HasMoveRequestCycle: PriorityQueue still has the field (up to v1.36).
	HasMoveRequestCycle bool
	// HasHintCounts: QueuedPodInfo has UnschedulableCount (from v1.34).
	HasHintCounts bool
	// LabelsAsTheProfile: the release names events of unscheduled pods
	// UnscheduledPod, as the hints profile's metrics (R14h) do; v1.36 and
	// earlier say UnschedulablePod (renamed in v1.37), so every incoming
	// series of theirs differs by its label and their metrics are not
	// compared in that profile (the scenarios' other observations are).
	LabelsAsTheProfile bool
	// PreQueueingHints: the SchedulerPreQueueingHints gate is on by
	// default (from v1.38), so the release's default gates run them.
	PreQueueingHints bool
}

var release = sync.OnceValue(func() ReleaseInfo {
	r := ReleaseInfo{Version: os.Getenv("SCHEDQ_K8S_BASE")}
	// Where the queue's code was compiled from: the module cache
	// (.../k8s.io/kubernetes@v1.35.6/pkg/...) names the version; a local
	// checkout is a directory, and its base release comes from the
	// environment (the branch command sets it).
	file, _ := runtime.FuncForPC(reflect.ValueOf(queue.NewPriorityQueue).Pointer()).FileLine(0)
	dir, _, _ := strings.Cut(filepath.ToSlash(file), "/pkg/scheduler/")
	if _, v, ok := strings.Cut(dir, "k8s.io/kubernetes@"); ok {
		r.Version = v
	} else {
		r.Replace = dir
	}
	if r.Version == "" {
		r.Version = "unknown"
	}
	s, ok := utilfeature.DefaultMutableFeatureGate.GetAll()["SchedulerQueueingHints"]
	r.CanSwitchHintsOff = ok && !s.LockToDefault
	if s, ok := utilfeature.DefaultMutableFeatureGate.GetAll()["SchedulerPreQueueingHints"]; ok {
		r.PreQueueingHints = s.Default
	}
	_, r.HasMoveRequestCycle = reflect.TypeFor[queue.PriorityQueue]().FieldByName("moveRequestCycle")
	_, r.HasHintCounts = reflect.TypeFor[framework.QueuedPodInfo]().FieldByName("UnschedulableCount")
	r.LabelsAsTheProfile = string(framework.EventUnscheduledPodAdd.Resource) == "UnscheduledPod"
	return r
})

// Release reports the release the package is built against.
func Release() ReleaseInfo { return release() }

// Minor is the release's minor version ("1.35"), the unit of the release
// matrix.
func (r ReleaseInfo) Minor() string {
	v := strings.TrimPrefix(r.Version, "v")
	if i := strings.Index(v, "."); i >= 0 {
		if j := strings.Index(v[i+1:], "."); j >= 0 {
			return v[:i+1+j]
		}
	}
	return v
}

// HintsName is the target name of the release with its default gates.
// v1.33, whose gates can be switched, names the mode; the names of v1.33
// and v1.37 are those the scenario files' known-difference directives use.
func (r ReleaseInfo) HintsName() string {
	if r.CanSwitchHintsOff {
		return "upstream-" + r.Version + "-queueinghints"
	}
	return "upstream-" + r.Version
}

// ClassicName is the target name of the release in classic mode.
func (r ReleaseInfo) ClassicName() string { return "upstream-" + r.Version + "-classic" }

// Note is what a target's description adds for a local checkout.
func (r ReleaseInfo) Note() string {
	if r.Replace == "" {
		return ""
	}
	return "; built from the local checkout " + r.Replace
}

// The names of the two releases whose known differences the scenario files
// declare by name must stay what conformance calls them.
var _ = [...]string{conformance.TargetUpstream133Classic, conformance.TargetUpstream133Hints, conformance.TargetUpstream137}

// hintFields fills the fields of the hints profile that the release has,
// found by name, so one function serves every release: the counts (from
// v1.34) and FlushTimestamp (from v1.36).
func hintFields(pi *framework.QueuedPodInfo, out *spec.QueuedPodInfo) {
	v := reflect.ValueOf(pi).Elem()
	field := func(name string) (reflect.Value, bool) {
		f := v.FieldByName(name)
		return f, f.IsValid()
	}
	if f, ok := field("UnschedulableCount"); ok {
		out.UnschedulableCount = int(f.Int())
	}
	if f, ok := field("ConsecutiveErrorsCount"); ok {
		out.ConsecutiveErrorsCount = int(f.Int())
	}
	if f, ok := field("FlushTimestamp"); ok {
		out.FlushTimestamp = f.Interface().(time.Time)
	}
}

// gatingPlugin is the PreEnqueue plugin that gates the pod (R17, both
// profiles), by name from v1.34; v1.33 has only a Gated bool, for which it
// is the first PreEnqueue plugin, by name, that refuses the pod: the one
// v1.33 recorded when, as in the standard plugin sets, one plugin can refuse.
func gatingPlugin(cfg spec.Config, pi *framework.QueuedPodInfo, pod *spec.Pod) string {
	v := reflect.ValueOf(pi).Elem()
	if f := v.FieldByName("GatingPlugin"); f.IsValid() {
		return f.String()
	}
	if f := v.FieldByName("Gated"); f.IsValid() && f.Bool() {
		return cfg.RunPreEnqueue(pod, "")
	}
	return ""
}
