// Command schedq-peer is the reference peer of the conformance protocol: it
// serves schedq's implementation (package impl) with a fake clock over JSON
// lines on stdin and stdout, as package conformance/remote documents, so
// that the driver target of that package can be checked against a known
// good queue, and so that authors of a peer in another language have one to
// compare with.
//
//	schedq-peer [-broken=MODE]
//
// It serves one queue, created by the init request, and exits when stdin
// ends. Diagnostics go to stderr.
//
// -broken makes it misbehave on purpose, for the tests that show the suite
// catches a wrong queue through the protocol:
//
//	no-shortcut   AddUnschedulableIfNotPresent ignores the moveRequestCycle
//	              shortcut (R3): a pod that failed in the cycle of a move
//	              request lands in unschedulablePods (breaks I3)
//	ignore-done   Done answers success and leaves the pod in flight (R12)
//	ignore-hints  the queue is built without the config's queueing hints, so
//	              every registered event answers Queue (R16): wrong in the
//	              profiles with hints (hints, podgroups), not the classic
//	split-group   PopEntity of a group of several members leaves its last
//	              member out of flight: pending in the group's open cycle,
//	              missing from the popped group (G3, IG2): wrong in the
//	              podgroups profile only
//
// It serves the three profiles of the contract, pod groups and caller
// objects included (protocol version 2): a hints config arrives with its
// queueing hints and PreEnqueue plugins named (functions of the standard
// set, schedqtest/hintnames.go), and the queue is built with those
// functions.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/remote"
	"github.com/schedq/schedq/spec"
)

// ProfileName is the profile the peer claims: the implementation's
// semantics, reached through the protocol.
const ProfileName = "schedq-impl-over-protocol"

var brokenModes = map[string]string{
	"no-shortcut":  "AddUnschedulableIfNotPresent ignores the moveRequestCycle shortcut (R3, I3)",
	"ignore-done":  "Done answers success and leaves the pod in flight (R12)",
	"ignore-hints": "the queue ignores the config's queueing hints: every registered event answers Queue (R16)",
	"split-group":  "PopEntity leaves a group's last member out of flight (G3, IG2)",
}

func main() {
	broken := flag.String("broken", "", "misbehave on purpose: no-shortcut, ignore-done, ignore-hints or split-group (see the package documentation)")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "schedq-peer: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if _, ok := brokenModes[*broken]; *broken != "" && !ok {
		fmt.Fprintf(os.Stderr, "schedq-peer: unknown -broken mode %q (known: no-shortcut, ignore-done, ignore-hints, split-group)\n", *broken)
		os.Exit(2)
	}
	newQueue := func(cfg spec.Config, start time.Time) (conformance.Target, error) {
		if *broken == "ignore-hints" {
			cfg.QueueingHints = nil
		}
		q, err := conformance.NewImpl(cfg, start)
		if err != nil {
			return nil, err
		}
		desc := "schedq impl served by cmd/schedq-peer over the conformance protocol"
		if *broken != "" {
			desc += "; BROKEN on purpose: " + brokenModes[*broken]
		}
		q.About = conformance.TargetInfo{
			Name:        ProfileName,
			Description: desc,
			Blocking:    true,
			// Everything a snapshot holds, in every profile; metrics
			// are not on the wire.
			Observes: conformance.Observes{MoveRequestCycle: true, PodInfo: true, Closed: true,
				InFlightEvents: true, HintCounts: true},
		}
		t := target{q}
		switch *broken {
		case "no-shortcut":
			return noShortcut{t}, nil
		case "ignore-done":
			return ignoreDone{t}, nil
		case "split-group":
			return splitGroup{t}, nil
		}
		return t, nil
	}
	if err := remote.Serve(os.Stdin, os.Stdout, newQueue); err != nil {
		fmt.Fprintf(os.Stderr, "schedq-peer: %v\n", err)
		os.Exit(1)
	}
}

// target is the implementation (conformance.Impl) with a fake clock the
// step request moves. No flush runs on its own: the driver calls them.
type target struct{ *conformance.Impl }

type noShortcut struct{ target }

// AddUnschedulableIfNotPresent hands the queue a cycle no move request can
// reach, so the shortcut never applies.
func (q noShortcut) AddUnschedulableIfNotPresent(p *spec.QueuedPodInfo, _ int64) error {
	return q.target.AddUnschedulableIfNotPresent(p, math.MaxInt64)
}

type ignoreDone struct{ target }

func (ignoreDone) Done(spec.UID) error { return nil }

type splitGroup struct{ target }

// PopEntity takes the group whole, then pulls its last member back out of
// flight (Delete, then Add: the group's cycle is open, so it waits
// pending) and hands the scheduler the group without it.
func (q splitGroup) PopEntity() (spec.QueuedEntity, int64, error) {
	e, cycle, err := q.target.PopEntity()
	if err != nil || e.Group == nil || len(e.Group.Members) < 2 {
		return e, cycle, err
	}
	last := e.Group.Members[len(e.Group.Members)-1].Pod
	if q.Delete(last) == nil && q.Add(last) == nil {
		e.Group.Members = e.Group.Members[:len(e.Group.Members)-1]
	}
	return e, cycle, err
}
