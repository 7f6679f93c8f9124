package remote

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// NewQueue makes the queue a peer serves, from the config and clock start
// of the init request. In the hints profile the config's QueueingHints and
// PreEnqueuePlugins are the standard functions the request named
// (schedqtest.QueueingHintByName, schedqtest.PreEnqueueByName). The
// queue's clock must be a fake one that only the step request moves, and
// no flush may run on its own: the suite calls them. A queue that also
// implements spec.Nominator serves the nominator requests, and the init
// response says so. A profile the queue does not implement is its
// spec.ErrInvalidConfig. The requests of protocol version 2 need a queue
// that implements spec.ObjectQueue (caller objects, update verdicts) and,
// for the podgroups profile, spec.PodGroupQueue; a queue without them
// answers those requests with a protocol error.
type NewQueue func(cfg spec.Config, start time.Time) (conformance.Target, error)

// maxLine bounds one request line; a snapshot response can be long, a
// request is small.
const maxLine = 16 << 20

// Serve is the peer side of the protocol for a queue written in Go: it
// reads requests from in, runs them on the queue newQueue makes at init, and
// writes the responses to out, until in ends. Then it closes the queue,
// waits for the Pops still blocked (they end with the closed error) and
// returns. It returns an error only if reading in or writing out fails; a
// malformed request gets a response with code "protocol" and changes
// nothing.
func Serve(in io.Reader, out io.Writer, newQueue NewQueue) error {
	s := &server{out: bufio.NewWriter(out), newQueue: newQueue, codec: NewCodec(true)}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			s.reply(Response{Error: protocolError("not a request: %v", err)})
			continue
		}
		s.handle(req)
	}
	s.closeQueue()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	return sc.Err()
}

type server struct {
	newQueue NewQueue
	q        conformance.Target
	cfg      spec.Config // the queue's config, for pop's "would it block?"
	codec    *Codec      // the caller's objects that crossed (peer side)

	// waiting counts the Pops answered from their own goroutine that have
	// not returned yet; pops waits for them at the end.
	waiting atomic.Int64
	pops    sync.WaitGroup

	mu   sync.Mutex // guards out and werr: Pops answer from their goroutines
	out  *bufio.Writer
	werr error
}

func (s *server) reply(r Response) {
	line, err := marshalLine(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		line, _ = marshalLine(Response{ID: r.ID, Error: &Error{Code: codeProtocol, Message: "cannot encode the response: " + err.Error()}})
	}
	if s.werr != nil {
		return
	}
	if _, err := s.out.Write(line); err != nil {
		s.werr = err
		return
	}
	s.werr = s.out.Flush()
}

// handle answers one request: init makes the queue, which every other
// request needs. A Pop that may block is answered later, from a goroutine
// of its own; every other request is answered here, in order.
func (s *server) handle(req Request) {
	resp := Response{ID: req.ID}
	switch {
	case req.Op == "init":
		s.init(req, &resp)
	case s.q == nil:
		resp.Error = protocolError("%s before a successful init", req.Op)
	case req.Op == "pop" || req.Op == "popEntity":
		if s.startPop(s.q, req, &resp) {
			return
		}
	default:
		s.serve(s.q, req, &resp)
	}
	s.reply(resp)
}

// closeQueue ends the queue as the end of the input does: the Pops still
// waiting are answered closed before it returns (so before a reset's
// response), and the next request must be a new init.
func (s *server) closeQueue() {
	if s.q != nil {
		s.q.Close()
	}
	s.pops.Wait()
	s.q = nil
}

// protocolError is the error of a request the peer cannot take; it
// changes nothing.
func protocolError(format string, args ...any) *Error {
	return &Error{Code: codeProtocol, Message: fmt.Sprintf(format, args...)}
}

// init makes the queue and answers with the profile it implements. A
// peer serves one queue at a time: a reset ends it before the next init.
func (s *server) init(req Request, resp *Response) {
	switch {
	case s.q != nil:
		resp.Error = protocolError("init: the queue exists already; start a new peer for a new queue")
	case req.Version != Version:
		resp.Error = protocolError("init: this peer speaks protocol version %d, the driver asked for version %d", Version, req.Version)
	case req.Config == nil:
		resp.Error = protocolError("init: no config")
	}
	if resp.Error != nil {
		return
	}
	start, err := decodeTime(req.Now)
	if err != nil {
		resp.Error = protocolError("init: %v", err)
		return
	}
	cfg, err := DecodeConfig(req.Config)
	if err != nil {
		resp.Error = encodeError(err)
		return
	}
	q, err := s.newQueue(cfg, start)
	if err != nil {
		resp.Error = encodeError(err)
		return
	}
	// A new queue after a reset shares no caller object with the last:
	// the driver numbers its refs from 1 again.
	s.q, s.cfg, s.codec = q, cfg, NewCodec(true)
	_, nominator := q.(spec.Nominator)
	resp.Profile, resp.Version = EncodeProfile(q.Info(), nominator), Version
	if cfg.PodGroupsV138 {
		resp.Profile.GroupRules = groupRulesV138
	}
	resp.Profile.PreQueueing = cfg.PreQueueing
	resp.Profile.Reset = true
}

// startPop serves pop and popEntity, and reports whether it answers from
// a goroutine of its own (then the response is not the caller's to
// send). It answers at once when the Pop cannot block: no earlier Pop is
// waiting and there is a pod to take (only the request loop changes the
// queue, so nobody takes it first). Otherwise a blocked Pop would hold up
// the requests after it.
func (s *server) startPop(q conformance.Target, req Request, resp *Response) bool {
	pop := func() {
		info, cycle, err := q.Pop()
		resp.Info, resp.Cycle, resp.Error = s.codec.EncodeInfo(info), cycle, encodeError(err)
	}
	if req.Op == "popEntity" {
		pq, ok := q.(spec.PodGroupQueue)
		if !ok {
			resp.Error = protocolError("popEntity: the queue has no pod groups (spec.PodGroupQueue)")
			return false
		}
		pop = func() {
			e, cycle, err := pq.PopEntity()
			resp.Cycle, resp.Error = cycle, encodeError(err)
			if err == nil {
				resp.Entity = s.codec.EncodeEntity(e)
			}
		}
	}
	if s.waiting.Load() == 0 && (s.canPop(q.Snapshot()) || !q.Info().Blocking) {
		pop()
		return false
	}
	s.waiting.Add(1)
	s.pops.Add(1)
	go func() {
		defer s.pops.Done()
		defer s.waiting.Add(-1)
		pop()
		s.reply(*resp)
	}()
	return true
}

// serve runs a request that cannot block on the queue q. The response's
// error is what the queue returned, or one of code "protocol" for a
// request the peer cannot take (an unknown op, bad arguments, or an
// interface the queue does not implement).
func (s *server) serve(q conformance.Target, req Request, resp *Response) {
	switch req.Op {
	case "reset":
		s.closeQueue()
	case "add":
		resp.Error = encodeError(q.Add(s.codec.DecodePod(req.Pod)))
	case "addUnschedulable":
		info, err := s.codec.DecodeInfo(req.Info)
		if err != nil {
			resp.Error = protocolError("addUnschedulable: %v", err)
			break
		}
		resp.Error = encodeError(q.AddUnschedulableIfNotPresent(info, req.Cycle))
	case "moveAll":
		q.MoveAllToActiveOrBackoffQueue(DecodeEvent(req.Event), preCheck(req.PreCheckRejects))
	case "moveAllWithObjects":
		resp.Error = s.moveAllWithObjects(q, req)
	case "addAttemptedPodGroup", "addPodGroup", "updatePodGroup", "deletePodGroup":
		resp.Error = s.podGroupRequest(q, req)
	case "flushBackoffQ":
		q.FlushBackoffQCompleted()
	case "flushLeftover":
		q.FlushUnschedulablePodsLeftover()
	case "activate":
		pods := make([]*spec.Pod, len(req.Pods))
		for i, p := range req.Pods {
			pods[i] = s.codec.DecodePod(p)
		}
		resp.Error = encodeError(q.Activate(pods))
	case "update":
		resp.Error = s.update(q, req)
	case "delete":
		resp.Error = encodeError(q.Delete(s.codec.DecodePod(req.Pod)))
	case "assignedPodAdded":
		resp.Error = encodeError(q.AssignedPodAdded(s.codec.DecodePod(req.Pod)))
	case "assignedPodUpdated":
		resp.Error = encodeError(q.AssignedPodUpdated(s.codec.DecodePod(req.OldPod), s.codec.DecodePod(req.NewPod), DecodeEvent(req.Event)))
	case "done":
		resp.Error = encodeError(q.Done(spec.UID(req.UID)))
	case "close":
		q.Close()
	case "schedulingCycle":
		resp.Cycle = q.SchedulingCycle()
	case "snapshot":
		resp.Snapshot = s.codec.EncodeSnapshot(q.Snapshot())
	case "addNominatedPod", "nominatedPodsForNode":
		s.nominatorRequest(q, req, resp)
	case "step":
		if req.Nanoseconds < 0 {
			resp.Error = protocolError("step: negative duration %dns; a clock never goes back", req.Nanoseconds)
			break
		}
		q.Advance(time.Duration(req.Nanoseconds))
	default:
		resp.Error = protocolError("unknown op %q", req.Op)
	}
}

// canPop reports whether a Pop finds a pod to take at once: one in
// activeQ, or, in the hints profile, one in backoffQ that some plugin
// rejected (R2h), or the queue is closed (Pop returns the closed error).
func (s *server) canPop(snap spec.Snapshot) bool {
	if len(snap.ActiveQ) > 0 || snap.Closed {
		return true
	}
	if s.cfg.Profile.HasHints() {
		for i := range snap.BackoffQ {
			// A member of a pod group is never taken from backoffQ
			// early: its entity has no rejectors of its own (G3).
			if len(snap.BackoffQ[i].Rejectors()) > 0 && (s.cfg.Profile != spec.ProfilePodGroups || snap.BackoffQ[i].Pod.Group == "") {
				return true
			}
		}
	}
	return false
}

// preCheck is the pre-enqueue check of a move request: it rejects the
// pods the request names by key, and is nil when it names none.
func preCheck(rejects []string) spec.PreEnqueueCheck {
	if rejects == nil {
		return nil
	}
	rejects = slices.Clone(rejects)
	return func(p *spec.Pod) bool { return !slices.Contains(rejects, string(p.Key())) }
}

// update is an update of a pod, with the caller's verdict on what
// changed when the request carries one (spec.ObjectQueue).
func (s *server) update(q conformance.Target, req Request) *Error {
	if req.Change == nil {
		return encodeError(q.Update(s.codec.DecodePod(req.OldPod), s.codec.DecodePod(req.NewPod)))
	}
	oq, ok := q.(spec.ObjectQueue)
	if !ok {
		return protocolError("update with a change: the queue takes no update verdicts (spec.ObjectQueue)")
	}
	return encodeError(oq.UpdateWithChange(s.codec.DecodePod(req.OldPod), s.codec.DecodePod(req.NewPod), DecodePodChange(req.Change)))
}

// nominatorRequest serves the requests of spec.Nominator, which the init
// response claimed if the queue implements it.
func (s *server) nominatorRequest(q conformance.Target, req Request, resp *Response) {
	n, ok := q.(spec.Nominator)
	if !ok {
		resp.Error = protocolError("%s: the queue has no nominator (its init response did not claim one)", req.Op)
		return
	}
	if req.Op == "nominatedPodsForNode" {
		resp.Pods = []*Pod{}
		for _, p := range n.NominatedPodsForNode(req.NodeName) {
			resp.Pods = append(resp.Pods, s.codec.EncodePod(p))
		}
		return
	}
	mode, err := decodeMode(req.Mode)
	if err != nil {
		resp.Error = protocolError("addNominatedPod: %v", err)
		return
	}
	resp.Error = encodeError(n.AddNominatedPod(s.codec.DecodePod(req.Pod), mode, req.NodeName))
}

// moveAllWithObjects is a move request that carries the objects of its
// event (spec.ObjectQueue, protocol version 2).
func (s *server) moveAllWithObjects(q conformance.Target, req Request) *Error {
	oq, ok := q.(spec.ObjectQueue)
	if !ok {
		return protocolError("moveAllWithObjects: the queue takes no caller objects (spec.ObjectQueue)")
	}
	occ := spec.Occurrence{Event: DecodeEvent(req.Event), Old: s.codec.DecodePod(req.OldPod), New: s.codec.DecodePod(req.NewPod),
		OldObject: s.codec.DecodeObject(req.OldObject), NewObject: s.codec.DecodeObject(req.NewObject)}
	return encodeError(oq.MoveAllToActiveOrBackoffQueueWithObjects(occ, preCheck(req.PreCheckRejects)))
}

// podGroupRequest serves the requests of spec.PodGroupQueue but
// PopEntity (protocol version 2).
func (s *server) podGroupRequest(q conformance.Target, req Request) *Error {
	pq, ok := q.(spec.PodGroupQueue)
	if !ok {
		return protocolError("%s: the queue has no pod groups (spec.PodGroupQueue)", req.Op)
	}
	switch req.Op {
	case "addAttemptedPodGroup":
		g, err := s.codec.DecodeGroupInfo(req.GroupInfo)
		if err != nil {
			return protocolError("addAttemptedPodGroup: %v", err)
		}
		status, err := spec.ParseAttemptStatus(req.Status)
		if err != nil {
			return encodeError(err)
		}
		return encodeError(pq.AddAttemptedPodGroupIfNeeded(g, req.Cycle, status))
	case "addPodGroup":
		return encodeError(pq.AddPodGroup(s.codec.DecodePodGroup(req.PodGroup)))
	case "updatePodGroup":
		return encodeError(pq.UpdatePodGroup(s.codec.DecodePodGroup(req.OldPodGroup), s.codec.DecodePodGroup(req.NewPodGroup)))
	default: // deletePodGroup
		return encodeError(pq.DeletePodGroup(s.codec.DecodePodGroup(req.PodGroup)))
	}
}
