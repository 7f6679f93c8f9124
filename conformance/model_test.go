package conformance_test

import (
	"testing"

	"github.com/schedq/schedq/conformance"
)

// TestModel runs the suite against the model. The catalogue's expected
// outputs are what the model prints: regenerate them with
//
//	go test ./conformance/ -run TestModel -rewrite
func TestModel(t *testing.T) {
	conformance.Run(t, conformance.ModelTarget, conformance.Options{CatalogueDir: "testdata/scenarios"})
}
