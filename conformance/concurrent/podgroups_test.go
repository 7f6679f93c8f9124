package concurrent_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// lockedModel is the model behind one mutex: a podgroups target that
// keeps the contract by construction, so the races must find nothing on
// it (the control). Only the calls the races make are locked; the others
// are the model's own, unlocked, and the races do not make them.
type lockedModel struct {
	*model.Model
	mu sync.Mutex
	// mutant, if set, breaks the end of a group's cycle (see
	// TestPodGroupRacesCatch).
	mutant string
}

func (l *lockedModel) Advance(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.Model.Step(d); err != nil {
		panic(err)
	}
}

func (*lockedModel) Info() conformance.TargetInfo {
	return conformance.TargetInfo{Name: "locked-model", Description: "the model behind a mutex"}
}

func (l *lockedModel) Add(p *spec.Pod) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Model.Add(p)
}

func (l *lockedModel) AddUnschedulableIfNotPresent(info *spec.QueuedPodInfo, cycle int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Model.AddUnschedulableIfNotPresent(info, cycle)
}

func (l *lockedModel) Done(uid spec.UID) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Model.Done(uid)
}

func (l *lockedModel) Snapshot() spec.Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Model.Snapshot()
}

func (l *lockedModel) PopEntity() (spec.QueuedEntity, int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Model.PopEntity()
}

func (l *lockedModel) AddAttemptedPodGroupIfNeeded(g *spec.QueuedPodGroupInfo, cycle int64, s spec.AttemptStatus) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch l.mutant {
	case "success-always":
		s = spec.AttemptSuccess
	case "no-end":
		return nil
	}
	return l.Model.AddAttemptedPodGroupIfNeeded(g, cycle, s)
}

func (l *lockedModel) AddPodGroup(pg *spec.PodGroup) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Model.AddPodGroup(pg)
}

func newLockedModel(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
	return lockedModelWith("")(t, cfg, start)
}

func lockedModelWith(mutant string) conformance.NewTarget {
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		m, err := model.New(cfg, start)
		if err != nil {
			t.Fatal(err)
		}
		return &lockedModel{Model: m, mutant: mutant}
	}
}

// groupTrials is the races' trial count in the package's tests.
func groupTrials() int {
	if testing.Short() {
		return 50
	}
	return 300
}

// TestPodGroupRacesControl: on the model behind a mutex no race breaks the
// contract, and the late member failure comes out both ways (so the race
// really lets either goroutine win).
func TestPodGroupRacesControl(t *testing.T) {
	for _, res := range concurrent.RunPodGroupRaces(t, newLockedModel, groupTrials()) {
		if res.Name == "late-member-failure" && len(res.Outcomes) < 2 {
			t.Logf("late-member-failure came out one way only in %d trials: %v", res.Ran, res.Outcomes)
		}
	}
}

// TestPodGroupRacesCatch: the races can fail. Two broken ends of a
// group's cycle on the locked model: one that counts every cycle a
// success (the group skips its backoff, as on upstream when the marker
// is cleared), one that never ends the cycle (members stay pending, IG3).
// The known list lets the runner report them instead of failing.
func TestPodGroupRacesCatch(t *testing.T) {
	for _, tc := range []struct {
		mutant string
		caught []string
	}{
		{"success-always", []string{"cleared-marker", "stranded-pending"}},
		{"no-end", []string{"cleared-marker", "stranded-pending", "late-member-failure"}},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			names := []string{"cleared-marker", "stranded-pending", "late-member-failure"}
			for _, res := range concurrent.RunPodGroupRaces(t, lockedModelWith(tc.mutant), 20, names...) {
				if slices.Contains(tc.caught, res.Name) && res.Violations == 0 {
					t.Errorf("mutant %s not caught by %s: %s", tc.mutant, res.Name, res)
				}
			}
		})
	}
}

// TestImplPodGroupRaces runs the races on the implementation (make
// conformance runs it, by its name, and reports it in RESULTS.md).
func TestImplPodGroupRaces(t *testing.T) {
	concurrent.ReportPodGroupRaces(t, conformance.ImplTarget, groupTrials(), nil)
}
