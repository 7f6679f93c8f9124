package schedqtest

import "github.com/schedq/schedq/spec"

// Namespace is the namespace of the pods a scenario names.
const Namespace = "ns"

// Pod returns the pod a scenario calls name: namespace "ns", UID
// "uid-<name>", the given priority.
func Pod(name string, priority int32) *spec.Pod {
	return &spec.Pod{Namespace: Namespace, Name: name, UID: UIDOf(name), Priority: priority}
}

// Key is the key of Pod(name, ...).
func Key(name string) spec.PodKey { return spec.PodKey(Namespace + "/" + name) }

// UIDOf is the UID of Pod(name, ...).
func UIDOf(name string) spec.UID { return spec.UID("uid-" + name) }

// NameOf is the name a scenario uses for a key: the pod name for namespace
// "ns", the key otherwise.
func NameOf(k spec.PodKey) string {
	if len(k) > len(Namespace)+1 && string(k[:len(Namespace)+1]) == Namespace+"/" {
		return string(k[len(Namespace)+1:])
	}
	return string(k)
}
