package conformance_test

import (
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// modelTarget runs the suite against the executable model itself, which
// checks the catalogue as much as the model.
type modelTarget struct{ *model.Model }

func (m modelTarget) Advance(d time.Duration) {
	if err := m.Model.Step(d); err != nil {
		panic(err)
	}
}

func (modelTarget) Info() conformance.TargetInfo {
	return conformance.TargetInfo{
		Name:        conformance.TargetModel,
		Description: "schedq model: the executable specification",
		Observes: conformance.Observes{MoveRequestCycle: true, PodInfo: true, Closed: true,
			InFlightEvents: true, HintCounts: true},
	}
}

func newModelTarget(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
	m, err := model.New(cfg, start)
	if err != nil {
		t.Fatal(err)
	}
	return modelTarget{m}
}

// TestModel runs the suite against the model. The catalogue's expected
// outputs are what the model prints: regenerate them with
//
//	go test ./conformance/ -run TestModel -rewrite
func TestModel(t *testing.T) {
	conformance.Run(t, newModelTarget, conformance.Options{CatalogueDir: "testdata/scenarios"})
}
