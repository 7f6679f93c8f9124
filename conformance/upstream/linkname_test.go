package upstream

import (
	"testing"

	"github.com/schedq/schedq/internal/linkcheck"
)

// TestLinkedSignatures: each function linked to upstream's queue by
// go:linkname (its two flushes) has the signature of the method it links
// in the release this build compiles; make conformance runs it for every
// release. internal/linkcheck's tests show a wrong signature is caught.
func TestLinkedSignatures(t *testing.T) {
	if err := linkcheck.Check(".", flushBackoffQCompleted, flushLeftover); err != nil {
		t.Fatal(err)
	}
}
