package linearizability

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// A history is saved as JSON next to its visualisation so that it can be
// checked again later (ReadHistory, then Check), for example without a
// timeout, or after a fix to the model. Errors are saved by the sentinel
// they match and come back wrapping it; a PreCheck by its name.

type jsonHistory struct {
	Workload    Workload
	Config      spec.Config
	Rescues     int
	BlockedPops int
	ClosedEarly bool
	Overlapping int
	Operations  []jsonOp
}

type jsonOp struct {
	Client       int
	Call, Return int64
	Kind         string
	Pod          *spec.Pod           `json:",omitempty"`
	OldPod       *spec.Pod           `json:",omitempty"`
	Pods         []*spec.Pod         `json:",omitempty"`
	Info         *spec.QueuedPodInfo `json:",omitempty"`
	Cycle        int64               `json:",omitempty"`
	Event        *spec.ClusterEvent  `json:",omitempty"`
	PreCheck     string              `json:",omitempty"`
	UID          spec.UID            `json:",omitempty"`
	D            time.Duration       `json:",omitempty"`
	Err          string              `json:",omitempty"`
	OutInfo      *spec.QueuedPodInfo `json:",omitempty"`
	OutCycle     int64               `json:",omitempty"`
	Snapshot     *spec.Snapshot      `json:",omitempty"`
}

// preChecks are the named PreEnqueueChecks a workload uses.
var preChecks = map[string]spec.PreEnqueueCheck{
	"web only":      func(p *spec.Pod) bool { return p.Labels["app"] == "web" },
	"even priority": func(p *spec.Pod) bool { return p.Priority%20 == 0 },
}

func preCheck(name string) PreCheck {
	return PreCheck{Name: name, Fn: preChecks[name]}
}

// WriteJSON saves the history to path.
func (h *History) WriteJSON(path string) error {
	jh := jsonHistory{Workload: h.Workload, Config: h.Config, Rescues: h.Rescues,
		BlockedPops: h.BlockedPops, ClosedEarly: h.ClosedEarly, Overlapping: h.Overlapping}
	for _, op := range h.Operations {
		in, out := op.Input.(Input), op.Output.(Output)
		jo := jsonOp{Client: op.ClientId, Call: op.Call, Return: op.Return, Kind: in.Kind.String(),
			Pod: in.Pod, OldPod: in.OldPod, Pods: in.Pods, Info: in.Info, Cycle: in.Cycle, PreCheck: in.PreCheck.Name,
			UID: in.UID, D: in.D, OutInfo: out.Info, OutCycle: out.Cycle, Snapshot: out.Snapshot}
		if in.Event != (spec.ClusterEvent{}) {
			ev := in.Event
			jo.Event = &ev
		}
		if out.Err != nil {
			jo.Err = errName(out.Err)
		}
		jh.Operations = append(jh.Operations, jo)
	}
	b, err := json.MarshalIndent(jh, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// ReadHistory loads a history saved by WriteJSON.
func ReadHistory(path string) (*History, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var jh jsonHistory
	if err := json.Unmarshal(b, &jh); err != nil {
		return nil, err
	}
	h := &History{Workload: jh.Workload, Config: jh.Config, Rescues: jh.Rescues,
		BlockedPops: jh.BlockedPops, ClosedEarly: jh.ClosedEarly, Overlapping: jh.Overlapping}
	kinds := map[string]Kind{}
	for k := range kindNames {
		kinds[Kind(k).String()] = Kind(k)
	}
	errs := map[string]error{}
	for _, s := range schedqtest.Sentinels {
		errs[errName(s)] = s
	}
	seq := map[int]int{}
	for _, jo := range jh.Operations {
		kind, ok := kinds[jo.Kind]
		if !ok {
			return nil, fmt.Errorf("%s: unknown operation %q", path, jo.Kind)
		}
		in := Input{Kind: kind, Pod: jo.Pod, OldPod: jo.OldPod, Pods: jo.Pods, Info: jo.Info, Cycle: jo.Cycle,
			UID: jo.UID, D: jo.D}
		if jo.Event != nil {
			in.Event = *jo.Event
		}
		if jo.PreCheck != "" {
			if in.PreCheck = preCheck(jo.PreCheck); in.PreCheck.Fn == nil {
				return nil, fmt.Errorf("%s: unknown PreCheck %q", path, jo.PreCheck)
			}
		}
		out := Output{Info: jo.OutInfo, Cycle: jo.OutCycle, Snapshot: jo.Snapshot}
		if jo.Err != "" {
			s, ok := errs[jo.Err]
			if !ok {
				s = errors.New(jo.Err)
			}
			out.Err = fmt.Errorf("replayed: %w", s)
		}
		h.Operations = append(h.Operations, porcupine.Operation{ClientId: jo.Client, Input: in, Call: jo.Call,
			Output: out, Return: jo.Return, Metadata: Metadata{Client: jo.Client, Seq: seq[jo.Client], In: in, Out: out}})
		seq[jo.Client]++
	}
	return h, nil
}
