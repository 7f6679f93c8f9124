package remote

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// OpTimeout bounds how long the driver waits for the answer to any request
// but pop (which may wait for a pod as long as the queue is open). A peer
// that takes longer is reported as a protocol error: every operation of the
// contract is meant to return at once.
const OpTimeout = 30 * time.Second

// NewTarget returns a conformance.NewTarget that starts the peer command
// cmd (the program and its arguments) once per target, sends it init with
// the target's config and clock start, and speaks the protocol with it. The
// peer's profile is the one its init response claims; a peer claiming the
// nominator requests is a spec.Nominator too. A config whose hint or
// PreEnqueue functions are not all of the standard set cannot cross
// (EncodeConfig): the constructor then fails with spec.ErrInvalidConfig,
// which the suite reports as n/a. The peer is stopped
// (its stdin closed) when the test ends; a peer that then exits with an
// error fails the test with its stderr.
//
// The peer runs in the working directory of the call to NewTarget, so a
// relative program ("./my-queue-peer") or script argument ("peer.py")
// names the same file in every target, although the suite's random runs
// change the working directory (t.Chdir).
//
// Every file the command line names (the program, found on $PATH if it is
// a bare name, and any argument that is an existing file) is stat'ed each
// time a target is made, so that go test's result cache, which keys on
// the files a test opens or stats, is invalidated when the peer's binary
// or script changes. go test rechecks only files inside the module (or
// GOPATH, GOROOT): keep the peer there, or run with -count=1, as for any
// other file the peer reads.
func NewTarget(cmd []string) conformance.NewTarget {
	dir, dirErr := os.Getwd()
	inputs := peerInputs(cmd, dir)
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		t.Helper()
		if dirErr != nil {
			t.Fatalf("schedq remote: the working directory of the peer: %v", dirErr)
		}
		for _, f := range inputs {
			os.Stat(f) // an input of go test's cache (above); a missing file fails at start
		}
		p, err := startIn(cmd, dir, cfg, start)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := p.Stop(); err != nil {
				t.Error(err)
			}
		})
		if n := p.Nominator(); n != nil {
			return n
		}
		return p
	}
}

// peerInputs returns the absolute paths of the files cmd names, relative
// names resolved in dir: the program (through $PATH if it is a bare name)
// and every argument that names an existing regular file.
func peerInputs(cmd []string, dir string) []string {
	var files []string
	for i, a := range cmd {
		if a == "" {
			continue
		}
		if i == 0 && !strings.ContainsRune(a, filepath.Separator) {
			if lp, err := exec.LookPath(a); err == nil {
				a = lp
			}
		}
		if !filepath.IsAbs(a) {
			a = filepath.Join(dir, a)
		}
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
			files = append(files, a)
		}
	}
	return files
}

// Peer is a queue in another process, reached through the protocol. It
// satisfies conformance.Target and is safe for concurrent use: requests
// from several goroutines are in flight together, and their responses are
// matched by id.
//
// The Peer has no nominator methods: NewTarget returns Nominator() instead
// when the peer claims the nominator requests, so that a peer without them
// is a target without a nominator.
//
// Operations that return an error return the queue's error (matching the
// spec error with errors.Is) or an error wrapping ErrProtocol. The others
// (MoveAllToActiveOrBackoffQueue, the flushes, Close, Step, Snapshot,
// SchedulingCycle) panic with an error wrapping ErrProtocol, which the
// suite reports as the scenario's failure.
type Peer struct {
	cmd     *exec.Cmd
	name    string
	profile conformance.TargetInfo
	// nominator: the peer claimed the nominator requests.
	nominator bool
	// resets: the peer claimed reset; Stop hands its process to the next
	// queue of the same command (idle) rather than ending it.
	resets bool
	key    string // the command and directory: which queues may reuse the process
	codec  *Codec // the caller's objects that crossed (driver side)

	wmu   sync.Mutex // serialises request lines
	stdin io.WriteCloser

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan Response
	failure error         // set once: the first protocol error or the peer's exit
	exited  chan struct{} // closed when the reader has seen the end and the process was waited for
	waitErr error
	stderr  tail
}

// Start starts the peer command and initialises its queue. It returns the
// queue's own error (e.g. spec.ErrInvalidConfig) or a protocol error with
// the peer's stderr.
func Start(cmd []string, cfg spec.Config, start time.Time) (*Peer, error) {
	return startIn(cmd, "", cfg, start)
}

// startIn is Start with the peer running in dir ("": the current
// directory); a relative program path is resolved in dir too.
func startIn(cmd []string, dir string, cfg spec.Config, start time.Time) (*Peer, error) {
	if len(cmd) == 0 {
		return nil, errors.New("schedq remote: no peer command")
	}
	// Queueing hints and PreEnqueue plugins are functions: they cross by
	// the names of the standard set, and a config with any other function
	// is refused here, before a peer starts.
	wcfg, err := EncodeConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("schedq remote: %w", err)
	}
	key := dir + "\x00" + strings.Join(cmd, "\x00")
	if p := idlePeers.take(key); p != nil {
		err := p.init(wcfg, start)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, ErrProtocol) && p.failed() == nil {
			idlePeers.put(p) // a refused init leaves the peer waiting for the next (its own error, e.g. invalidConfig)
		} else {
			p.stop()
		}
		return nil, fmt.Errorf("schedq remote: peer %q: init: %w%s", p.name, err, p.stderrTail())
	}
	prog := cmd[0]
	if dir != "" && strings.ContainsRune(prog, filepath.Separator) && !filepath.IsAbs(prog) {
		prog = filepath.Join(dir, prog)
	}
	c := exec.Command(prog, cmd[1:]...)
	c.Dir = dir
	p := &Peer{cmd: c, name: strings.Join(cmd, " "), key: key, pending: map[int64]chan Response{}, exited: make(chan struct{})}
	c.Stderr = &p.stderr
	if p.stdin, err = c.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("schedq remote: starting the peer %q: %w", p.name, err)
	}
	go p.read(stdout)
	if err := p.init(wcfg, start); err != nil {
		p.stop()
		return nil, fmt.Errorf("schedq remote: peer %q: init: %w%s", p.name, err, p.stderrTail())
	}
	return p, nil
}

// init creates the peer's queue: the init request and the checks of its
// response.
func (p *Peer) init(wcfg *Config, start time.Time) error {
	p.codec = NewCodec(false)
	resp, err := p.call(Request{Op: "init", Config: wcfg, Now: encodeTime(start), Version: Version}, OpTimeout)
	if err == nil {
		err = decodeError(resp.Error)
		switch {
		case err != nil:
		case resp.Version == 0:
			err = fmt.Errorf("%w: the peer speaks protocol version 1 (its init response names no version) and this driver speaks version %d, "+
				"which adds pod groups, caller objects and update verdicts: answer init with \"version\":%d and serve the operations package conformance/remote documents", ErrProtocol, Version, Version)
		case resp.Version != Version:
			err = fmt.Errorf("%w: the peer speaks protocol version %d and this driver speaks version %d", ErrProtocol, resp.Version, Version)
		case resp.Profile == nil:
			err = fmt.Errorf("%w: the init response has no profile", ErrProtocol)
		case resp.Profile.GroupRules != wcfg.GroupRules && wcfg.GroupRules == "":
			err = fmt.Errorf("%w: the init profile confirms group rules %q that the config did not ask for", ErrProtocol, resp.Profile.GroupRules)
		case resp.Profile.GroupRules != wcfg.GroupRules:
			err = fmt.Errorf("%w: the config asks for group rules %q (G12, G13) and the peer's init profile confirms %q: "+
				"a peer that applies them answers with \"groupRules\":%q in its profile, one that does not answers invalidConfig",
				spec.ErrInvalidConfig, wcfg.GroupRules, resp.Profile.GroupRules, wcfg.GroupRules)
		case resp.Profile.PreQueueing && !wcfg.PreQueueing:
			err = fmt.Errorf("%w: the init profile confirms the pre-queueing setting that the config did not ask for", ErrProtocol)
		case wcfg.PreQueueing && !resp.Profile.PreQueueing:
			err = fmt.Errorf("%w: the config asks for the pre-queueing setting (R20-R22) and the peer's init profile does not confirm it: "+
				"a peer that applies it answers with \"preQueueing\":true in its profile, one that does not answers invalidConfig", spec.ErrInvalidConfig)
		}
	}
	if err != nil && resp.Error == nil && resp.Profile != nil {
		// The peer made a queue the driver refuses (its group rules): a
		// process kept for the next queue must be back before init.
		// Only a peer that claimed reset is asked: another (one of
		// version 1, say) may never answer, and the driver waited
		// OpTimeout for it.
		if !resp.Profile.Reset {
			p.fail(fmt.Errorf("%w: the peer's queue was refused and the peer cannot reset it", ErrProtocol))
		} else if r, rerr := p.call(Request{Op: "reset"}, OpTimeout); rerr != nil || r.Error != nil {
			p.fail(fmt.Errorf("%w: the peer's queue was refused and its reset failed", ErrProtocol))
		}
	}
	if err != nil {
		return err
	}
	p.profile = DecodeProfile(resp.Profile)
	p.nominator, p.resets = resp.Profile.Nominator, resp.Profile.Reset
	return nil
}

// idlePeers are the processes of peers that claimed reset, between two
// queues. A process stays idle until the next queue of its command takes
// it, or until the test binary exits, which ends its input.
var idlePeers = &idle{peers: map[string][]*Peer{}}

// maxIdle bounds the idle processes of one command: as many as the
// queues a suite has open at once (parallel scenarios), within reason.
const maxIdle = 8

type idle struct {
	mu    sync.Mutex
	peers map[string][]*Peer
}

// take returns an idle process of key that is still running, or nil.
func (i *idle) take(key string) *Peer {
	i.mu.Lock()
	defer i.mu.Unlock()
	for ps := i.peers[key]; len(ps) > 0; ps = i.peers[key] {
		p := ps[len(ps)-1]
		i.peers[key] = ps[:len(ps)-1]
		select {
		case <-p.exited:
			continue // it ended while idle
		default:
			return p
		}
	}
	return nil
}

// put keeps p for the next queue of its command, or ends it when enough
// are idle.
func (i *idle) put(p *Peer) {
	i.mu.Lock()
	if len(i.peers[p.key]) < maxIdle {
		i.peers[p.key] = append(i.peers[p.key], p)
		i.mu.Unlock()
		return
	}
	i.mu.Unlock()
	p.stop()
}

// read dispatches response lines until the peer's stdout ends.
func (p *Peer) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		var r Response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			p.fail(fmt.Errorf("%w: the peer wrote a line that is not a response (%v): %.200q", ErrProtocol, err, sc.Text()))
			p.cmd.Process.Kill()
			continue
		}
		p.mu.Lock()
		ch, ok := p.pending[r.ID]
		delete(p.pending, r.ID)
		p.mu.Unlock()
		if !ok {
			if r.Error != nil && r.Error.Code == codeProtocol {
				p.fail(fmt.Errorf("%w: the peer rejected a request: %s", ErrProtocol, r.Error.Message))
			} else {
				p.fail(fmt.Errorf("%w: the peer answered id %d, which no request is waiting for: %.200q", ErrProtocol, r.ID, sc.Text()))
			}
			continue
		}
		ch <- r
	}
	if err := sc.Err(); err != nil {
		p.fail(fmt.Errorf("%w: reading the peer's output: %v", ErrProtocol, err))
	}
	p.waitErr = p.cmd.Wait()
	how := "exited"
	if p.waitErr != nil {
		how = "exited with " + p.waitErr.Error()
	}
	p.fail(fmt.Errorf("%w: the peer %s", ErrProtocol, how))
	close(p.exited)
}

// fail records the first failure and ends every waiting request with it.
func (p *Peer) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failure == nil {
		p.failure = err
	}
	for id, ch := range p.pending {
		delete(p.pending, id)
		close(ch)
	}
}

func (p *Peer) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failure
}

// call sends req and waits for its response, at most timeout (0: no limit).
func (p *Peer) call(req Request, timeout time.Duration) (Response, error) {
	req.ID = p.nextID.Add(1)
	ch := make(chan Response, 1)
	p.mu.Lock()
	if p.failure != nil {
		err := p.failure
		p.mu.Unlock()
		return Response{}, p.describe(req.Op, err)
	}
	p.pending[req.ID] = ch
	p.mu.Unlock()

	line, err := marshalLine(req)
	if err == nil {
		p.wmu.Lock()
		_, err = p.stdin.Write(line)
		p.wmu.Unlock()
	}
	if err != nil {
		p.fail(fmt.Errorf("%w: writing a request: %v", ErrProtocol, err))
		return Response{}, p.describe(req.Op, p.failed())
	}

	var expire <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expire = timer.C
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return Response{}, p.describe(req.Op, p.failed())
		}
		if r.Error != nil && r.Error.Code == codeProtocol {
			return Response{}, p.describe(req.Op, decodeError(r.Error))
		}
		return r, nil
	case <-expire:
		p.mu.Lock()
		delete(p.pending, req.ID)
		p.mu.Unlock()
		return Response{}, p.describe(req.Op, fmt.Errorf("%w: no answer within %v", ErrProtocol, timeout))
	}
}

func (p *Peer) describe(op string, err error) error {
	return fmt.Errorf("schedq remote: peer %q, %s: %w%s", p.name, op, err, p.stderrTail())
}

func (p *Peer) stderrTail() string {
	if s := p.stderr.String(); s != "" {
		return "\npeer stderr (last lines):\n" + s
	}
	return ""
}

// Stop ends the peer's queue. A peer that claimed reset gets a reset and
// its process waits for the next queue of the same command (NewTarget,
// Start): shrinking a failure of the random runs plays hundreds of short
// queues, and a process start for each was most of a process peer's time.
// Any other peer (or one that fails the reset) has its stdin closed, which
// ends it, and Stop waits for it to exit (at most 10 seconds, then kills
// it), returning an error if it did not exit cleanly. Stop does not close
// the queue first: the peer does that on its own when its input ends.
func (p *Peer) Stop() error {
	if p.resets && p.failed() == nil {
		// The peer answers every waiting pop (closed) before reset, so
		// nothing of this queue is left in flight on the wire.
		if r, err := p.call(Request{Op: "reset"}, OpTimeout); err == nil && r.Error == nil {
			idlePeers.put(p)
			return nil
		}
	}
	return p.stop()
}

// stop ends the peer's process: the end of its input, then its exit.
func (p *Peer) stop() error {
	p.wmu.Lock()
	p.stdin.Close()
	p.wmu.Unlock()
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("schedq remote: peer %q did not exit within 10s of the end of its input; killed%s", p.name, p.stderrTail())
	}
	if p.waitErr != nil {
		return fmt.Errorf("schedq remote: peer %q: %v%s", p.name, p.waitErr, p.stderrTail())
	}
	return nil
}

// do performs an operation whose result is only an error.
func (p *Peer) do(req Request) error {
	r, err := p.call(req, OpTimeout)
	if err != nil {
		return err
	}
	return decodeError(r.Error)
}

// must performs an operation that returns nothing; a failure panics.
func (p *Peer) must(req Request) Response {
	r, err := p.call(req, OpTimeout)
	if err == nil && r.Error != nil {
		err = fmt.Errorf("%w: %s answered with an error where the operation has none: %v", ErrProtocol, req.Op, decodeError(r.Error))
	}
	if err != nil {
		panic(err)
	}
	return r
}

// Profile is the profile the peer claimed in its init response.
func (p *Peer) Info() conformance.TargetInfo { return p.profile }

// Add is R1.
func (p *Peer) Add(pod *spec.Pod) error { return p.do(Request{Op: "add", Pod: p.codec.EncodePod(pod)}) }

// Pop is R2. It waits as long as the peer does: until a pod comes, the
// queue closes or the peer ends.
func (p *Peer) Pop() (*spec.QueuedPodInfo, int64, error) {
	r, err := p.call(Request{Op: "pop"}, 0)
	if err != nil {
		return nil, 0, err
	}
	if err := decodeError(r.Error); err != nil {
		return nil, 0, err
	}
	info, err := p.codec.DecodeInfo(r.Info)
	if err == nil && (info == nil || info.Pod == nil) {
		err = fmt.Errorf("%w: a pop response with neither a pod nor an error", ErrProtocol)
	}
	if err != nil {
		return nil, 0, p.describe("pop", err)
	}
	return info, r.Cycle, nil
}

// AddUnschedulableIfNotPresent is R3.
func (p *Peer) AddUnschedulableIfNotPresent(info *spec.QueuedPodInfo, podSchedulingCycle int64) error {
	return p.do(Request{Op: "addUnschedulable", Info: p.codec.EncodeInfo(info), Cycle: podSchedulingCycle})
}

// MoveAllToActiveOrBackoffQueue is R4. A preCheck cannot cross a process
// boundary: the driver evaluates it on every pod of a snapshot it takes
// right before, and sends the keys it rejects.
func (p *Peer) MoveAllToActiveOrBackoffQueue(event spec.ClusterEvent, preCheck spec.PreEnqueueCheck) {
	p.must(Request{Op: "moveAll", Event: EncodeEvent(event), PreCheckRejects: p.preCheckRejects(preCheck)})
}

// preCheckRejects evaluates a move request's preCheck on every pod of a
// snapshot taken now: nil for no check, else the keys it rejects (a
// non-nil list, even empty).
func (p *Peer) preCheckRejects(preCheck spec.PreEnqueueCheck) []string {
	if preCheck == nil {
		return nil
	}
	s := p.Snapshot()
	rejects := []string{}
	for _, pl := range s.Places() {
		for i := range pl.Pods {
			if !preCheck(pl.Pods[i].Pod) {
				rejects = append(rejects, string(pl.Pods[i].Key()))
			}
		}
	}
	return rejects
}

// FlushBackoffQCompleted is R5.
func (p *Peer) FlushBackoffQCompleted() { p.must(Request{Op: "flushBackoffQ"}) }

// FlushUnschedulablePodsLeftover is R6.
func (p *Peer) FlushUnschedulablePodsLeftover() { p.must(Request{Op: "flushLeftover"}) }

// Activate is R8.
func (p *Peer) Activate(pods []*spec.Pod) error {
	w := make([]*Pod, len(pods))
	for i, pod := range pods {
		w[i] = p.codec.EncodePod(pod)
	}
	return p.do(Request{Op: "activate", Pods: w})
}

// Update is R9.
func (p *Peer) Update(oldPod, newPod *spec.Pod) error {
	return p.do(Request{Op: "update", OldPod: p.codec.EncodePod(oldPod), NewPod: p.codec.EncodePod(newPod)})
}

// Delete is R10.
func (p *Peer) Delete(pod *spec.Pod) error {
	return p.do(Request{Op: "delete", Pod: p.codec.EncodePod(pod)})
}

// AssignedPodAdded is R11.
func (p *Peer) AssignedPodAdded(pod *spec.Pod) error {
	return p.do(Request{Op: "assignedPodAdded", Pod: p.codec.EncodePod(pod)})
}

// AssignedPodUpdated is R11 for an update.
func (p *Peer) AssignedPodUpdated(oldPod, newPod *spec.Pod, event spec.ClusterEvent) error {
	return p.do(Request{Op: "assignedPodUpdated", OldPod: p.codec.EncodePod(oldPod), NewPod: p.codec.EncodePod(newPod), Event: EncodeEvent(event)})
}

// Done is R12.
func (p *Peer) Done(uid spec.UID) error { return p.do(Request{Op: "done", UID: string(uid)}) }

// Close is R13. The peer keeps running: a closed queue still answers
// Snapshot, and Pop with the closed error.
func (p *Peer) Close() { p.must(Request{Op: "close"}) }

// SchedulingCycle returns the number of Pops so far.
func (p *Peer) SchedulingCycle() int64 { return p.must(Request{Op: "schedulingCycle"}).Cycle }

// Snapshot returns the peer's snapshot.
func (p *Peer) Snapshot() spec.Snapshot {
	r := p.must(Request{Op: "snapshot"})
	s, err := p.codec.DecodeSnapshot(r.Snapshot)
	if err != nil {
		panic(p.describe("snapshot", err))
	}
	return s
}

// Step advances the peer's fake clock by d.
func (p *Peer) Advance(d time.Duration) { p.must(Request{Op: "step", Nanoseconds: int64(d)}) }

var (
	_ conformance.Target = (*Peer)(nil)
	_ spec.PodGroupQueue = (*Peer)(nil)
	_ spec.ObjectQueue   = (*Peer)(nil)
)

// MoveAllToActiveOrBackoffQueueWithObjects is R4 with the event's objects
// (R19): pods as pods, any other object as an Object.
func (p *Peer) MoveAllToActiveOrBackoffQueueWithObjects(occ spec.Occurrence, preCheck spec.PreEnqueueCheck) error {
	req := Request{Op: "moveAllWithObjects", Event: EncodeEvent(occ.Event), OldPod: p.codec.EncodePod(occ.Old), NewPod: p.codec.EncodePod(occ.New),
		OldObject: p.codec.EncodeObject(occ.OldObject), NewObject: p.codec.EncodeObject(occ.NewObject)}
	req.PreCheckRejects = p.preCheckRejects(preCheck)
	return p.do(req)
}

// UpdateWithChange is R9 with the caller's verdict.
func (p *Peer) UpdateWithChange(oldPod, newPod *spec.Pod, change *spec.PodChange) error {
	return p.do(Request{Op: "update", OldPod: p.codec.EncodePod(oldPod), NewPod: p.codec.EncodePod(newPod), Change: EncodePodChange(change)})
}

// PopEntity is G3. It waits as Pop does.
func (p *Peer) PopEntity() (spec.QueuedEntity, int64, error) {
	r, err := p.call(Request{Op: "popEntity"}, 0)
	if err != nil {
		return spec.QueuedEntity{}, 0, err
	}
	if err := decodeError(r.Error); err != nil {
		return spec.QueuedEntity{}, 0, err
	}
	e, err := p.codec.DecodeEntity(r.Entity)
	if err != nil {
		return spec.QueuedEntity{}, 0, p.describe("popEntity", err)
	}
	return e, r.Cycle, nil
}

// AddAttemptedPodGroupIfNeeded is G5.
func (p *Peer) AddAttemptedPodGroupIfNeeded(gInfo *spec.QueuedPodGroupInfo, schedulingCycle int64, status spec.AttemptStatus) error {
	return p.do(Request{Op: "addAttemptedPodGroup", GroupInfo: p.codec.EncodeGroupInfo(gInfo), Cycle: schedulingCycle, Status: status.String()})
}

// AddPodGroup is G11.
func (p *Peer) AddPodGroup(pg *spec.PodGroup) error {
	return p.do(Request{Op: "addPodGroup", PodGroup: p.codec.EncodePodGroup(pg)})
}

// UpdatePodGroup is G11.
func (p *Peer) UpdatePodGroup(oldPG, newPG *spec.PodGroup) error {
	return p.do(Request{Op: "updatePodGroup", OldPodGroup: p.codec.EncodePodGroup(oldPG), NewPodGroup: p.codec.EncodePodGroup(newPG)})
}

// DeletePodGroup is G11.
func (p *Peer) DeletePodGroup(pg *spec.PodGroup) error {
	return p.do(Request{Op: "deletePodGroup", PodGroup: p.codec.EncodePodGroup(pg)})
}

// Nominator returns the peer as a conformance target with the nominator
// (spec.Nominator, R18) if its init response claimed one, else nil. The
// Peer itself has no nominator methods, so that the suite sees a peer
// without one as a target without one (its nominator scenarios n/a).
func (p *Peer) Nominator() *NominatingPeer {
	if !p.nominator {
		return nil
	}
	return &NominatingPeer{p}
}

// NominatingPeer is a Peer whose queue serves the nominator requests.
type NominatingPeer struct{ *Peer }

// AddNominatedPod is R18.
func (p *NominatingPeer) AddNominatedPod(pod *spec.Pod, mode spec.NominatingMode, nodeName string) error {
	return p.do(Request{Op: "addNominatedPod", Pod: p.codec.EncodePod(pod), Mode: encodeMode(mode), NodeName: nodeName})
}

// NominatedPodsForNode is R18. A protocol failure panics, as for the
// other operations without an error.
func (p *NominatingPeer) NominatedPodsForNode(nodeName string) []*spec.Pod {
	r := p.must(Request{Op: "nominatedPodsForNode", NodeName: nodeName})
	var out []*spec.Pod
	for i, w := range r.Pods {
		if w == nil {
			panic(p.describe("nominatedPodsForNode", fmt.Errorf("%w: element %d of the answer is null", ErrProtocol, i)))
		}
		out = append(out, p.codec.DecodePod(w))
	}
	return out
}

var (
	_ conformance.Target = (*NominatingPeer)(nil)
	_ spec.Nominator     = (*NominatingPeer)(nil)
)

// tail keeps the last lines a peer wrote to stderr, for failure messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 4 << 10

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	return string(b)
}
