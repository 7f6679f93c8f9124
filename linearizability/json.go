package linearizability

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// A history is saved as JSON next to its visualisation so that it can be
// checked again later (ReadHistory, then Check), for example without a
// timeout, or after a fix to the model. Each operation is saved as its
// line of the scenario language with the pods it was passed; errors by
// the sentinel they match, and they come back wrapping it.

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
	Op           string
	Pods         []*spec.Pod              `json:",omitempty"`
	Popped       *schedqtest.Popped       `json:",omitempty"`
	PoppedGroup  *schedqtest.PoppedGroup  `json:",omitempty"`
	Err          string                   `json:",omitempty"`
	Info         *spec.QueuedPodInfo      `json:",omitempty"`
	Group        *spec.QueuedPodGroupInfo `json:",omitempty"`
	Cycle        int64                    `json:",omitempty"`
	Snapshot     *spec.Snapshot           `json:",omitempty"`
	Nominated    []*spec.Pod              `json:",omitempty"`
}

// WriteJSON saves the history to path.
func (h *History) WriteJSON(path string) error {
	cfg := h.Config
	// Functions do not marshal; the workload's hints and PreEnqueue
	// plugins are a function of the workload (Workload.config), and
	// ReadHistory puts them back.
	cfg.QueueingHints, cfg.PreEnqueuePlugins = nil, nil
	jh := jsonHistory{Workload: h.Workload, Config: cfg, Rescues: h.Rescues,
		BlockedPops: h.BlockedPops, ClosedEarly: h.ClosedEarly, Overlapping: h.Overlapping}
	for _, op := range h.Operations {
		in, out := op.Input.(Input), op.Output.(Output)
		jo := jsonOp{Client: op.ClientId, Call: op.Call, Return: op.Return, Op: in.Op.String(), Pods: in.Pods,
			Popped: in.Popped, PoppedGroup: in.PoppedGroup, Info: out.Info, Group: out.Group, Cycle: out.Cycle, Snapshot: out.Snapshot, Nominated: out.Nominated}
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
	cfg := jh.Workload.config()
	jh.Config.QueueingHints, jh.Config.PreEnqueuePlugins = cfg.QueueingHints, cfg.PreEnqueuePlugins
	h := &History{Workload: jh.Workload, Config: jh.Config, Rescues: jh.Rescues,
		BlockedPops: jh.BlockedPops, ClosedEarly: jh.ClosedEarly, Overlapping: jh.Overlapping}
	errs := map[string]error{}
	for _, s := range schedqtest.Sentinels {
		errs[errName(s)] = s
	}
	seq := map[int]int{}
	for _, jo := range jh.Operations {
		op := schedqtest.Op{Kind: KindSnapshot}
		if jo.Op != string(KindSnapshot) {
			if op, err = schedqtest.ParseOp(jo.Op); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		// Caller objects come back as maps; the history compares them
		// by identity, so they go back onto the workload's own.
		canonOp(&op)
		bad := []error{canonInfo(jo.Info), canonSnapshot(jo.Snapshot)}
		for _, p := range slices.Concat(jo.Pods, jo.Nominated) {
			bad = append(bad, canonPod(p))
		}
		if jo.Popped != nil {
			bad = append(bad, canonInfo(&jo.Popped.Info))
		}
		bad = append(bad, canonGroup(jo.Group))
		if jo.PoppedGroup != nil {
			bad = append(bad, canonGroup(&jo.PoppedGroup.Info))
		}
		if err := errors.Join(bad...); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		in := Input{Op: op, Pods: jo.Pods, Popped: jo.Popped, PoppedGroup: jo.PoppedGroup}
		out := Output{Info: jo.Info, Group: jo.Group, Cycle: jo.Cycle, Snapshot: jo.Snapshot, Nominated: jo.Nominated}
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
