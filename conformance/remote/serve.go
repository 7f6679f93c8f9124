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
// spec.ErrInvalidConfig.
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
	s := &server{out: bufio.NewWriter(out), newQueue: newQueue}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			s.reply(Response{Error: &Error{Code: codeProtocol, Message: fmt.Sprintf("not a request: %v", err)}})
			continue
		}
		s.handle(req)
	}
	if s.q != nil {
		s.q.Close()
	}
	s.pops.Wait()
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

func (s *server) handle(req Request) {
	resp := Response{ID: req.ID}
	protocol := func(format string, args ...any) {
		resp.Error = &Error{Code: codeProtocol, Message: fmt.Sprintf(format, args...)}
	}
	if req.Op == "init" {
		switch {
		case s.q != nil:
			protocol("init: the queue exists already; start a new peer for a new queue")
		case req.Config == nil:
			protocol("init: no config")
		default:
			start, err := decodeTime(req.Now)
			if err != nil {
				protocol("init: %v", err)
				break
			}
			cfg, err := DecodeConfig(req.Config)
			if err != nil {
				resp.Error = encodeError(err)
				break
			}
			q, err := s.newQueue(cfg, start)
			if err != nil {
				resp.Error = encodeError(err)
				break
			}
			s.q, s.cfg = q, cfg
			_, nominator := q.(spec.Nominator)
			resp.Profile = EncodeProfile(q.Info(), nominator)
		}
		s.reply(resp)
		return
	}
	if s.q == nil {
		protocol("%s before a successful init", req.Op)
		s.reply(resp)
		return
	}
	q := s.q
	switch req.Op {
	case "add":
		resp.Error = encodeError(q.Add(DecodePod(req.Pod)))
	case "pop":
		// Answered here when it cannot block: no earlier Pop is waiting
		// and there is a pod to take (only this loop changes the queue, so
		// nobody takes it first). Otherwise from a goroutine, so that a
		// blocked Pop does not hold up the requests after it.
		if s.waiting.Load() == 0 && (s.canPop(q.Snapshot()) || !q.Info().Blocking) {
			s.pop(q, &resp)
			break
		}
		s.waiting.Add(1)
		s.pops.Add(1)
		go func() {
			defer s.pops.Done()
			defer s.waiting.Add(-1)
			s.pop(q, &resp)
			s.reply(resp)
		}()
		return
	case "addUnschedulable":
		info, err := DecodeInfo(req.Info)
		if err != nil {
			protocol("addUnschedulable: %v", err)
			break
		}
		resp.Error = encodeError(q.AddUnschedulableIfNotPresent(info, req.Cycle))
	case "moveAll":
		var pre spec.PreEnqueueCheck
		if req.PreCheckRejects != nil {
			rejects := slices.Clone(req.PreCheckRejects)
			pre = func(p *spec.Pod) bool { return !slices.Contains(rejects, string(p.Key())) }
		}
		q.MoveAllToActiveOrBackoffQueue(DecodeEvent(req.Event), pre)
	case "flushBackoffQ":
		q.FlushBackoffQCompleted()
	case "flushLeftover":
		q.FlushUnschedulablePodsLeftover()
	case "activate":
		pods := make([]*spec.Pod, len(req.Pods))
		for i, p := range req.Pods {
			pods[i] = DecodePod(p)
		}
		resp.Error = encodeError(q.Activate(pods))
	case "update":
		resp.Error = encodeError(q.Update(DecodePod(req.OldPod), DecodePod(req.NewPod)))
	case "delete":
		resp.Error = encodeError(q.Delete(DecodePod(req.Pod)))
	case "assignedPodAdded":
		resp.Error = encodeError(q.AssignedPodAdded(DecodePod(req.Pod)))
	case "assignedPodUpdated":
		resp.Error = encodeError(q.AssignedPodUpdated(DecodePod(req.OldPod), DecodePod(req.NewPod), DecodeEvent(req.Event)))
	case "done":
		resp.Error = encodeError(q.Done(spec.UID(req.UID)))
	case "close":
		q.Close()
	case "schedulingCycle":
		resp.Cycle = q.SchedulingCycle()
	case "snapshot":
		resp.Snapshot = EncodeSnapshot(q.Snapshot())
	case "addNominatedPod", "nominatedPodsForNode":
		n, ok := q.(spec.Nominator)
		if !ok {
			protocol("%s: the queue has no nominator (its init response did not claim one)", req.Op)
			break
		}
		if req.Op == "nominatedPodsForNode" {
			resp.Pods = []*Pod{}
			for _, p := range n.NominatedPodsForNode(req.NodeName) {
				resp.Pods = append(resp.Pods, EncodePod(p))
			}
			break
		}
		mode, err := decodeMode(req.Mode)
		if err != nil {
			protocol("addNominatedPod: %v", err)
			break
		}
		resp.Error = encodeError(n.AddNominatedPod(DecodePod(req.Pod), mode, req.NodeName))
	case "step":
		if req.Nanoseconds < 0 {
			protocol("step: negative duration %dns; a clock never goes back", req.Nanoseconds)
			break
		}
		q.Advance(time.Duration(req.Nanoseconds))
	default:
		protocol("unknown op %q", req.Op)
	}
	s.reply(resp)
}

// canPop reports whether a Pop finds a pod to take at once: one in
// activeQ, or, in the hints profile, one in backoffQ that some plugin
// rejected (R2h), or the queue is closed (Pop returns the closed error).
func (s *server) canPop(snap spec.Snapshot) bool {
	if len(snap.ActiveQ) > 0 || snap.Closed {
		return true
	}
	if s.cfg.Profile == spec.ProfileHints {
		for i := range snap.BackoffQ {
			if len(snap.BackoffQ[i].Rejectors()) > 0 {
				return true
			}
		}
	}
	return false
}

func (s *server) pop(q conformance.Target, resp *Response) {
	info, cycle, err := q.Pop()
	resp.Info, resp.Cycle, resp.Error = EncodeInfo(info), cycle, encodeError(err)
}
