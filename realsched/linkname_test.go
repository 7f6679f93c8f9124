package realsched

import (
	"testing"

	"github.com/schedq/schedq/internal/linkcheck"
)

// TestLinkedSignatures: each function linked to upstream's queue by
// go:linkname (the recorder's flushes) has the signature of the method it
// links in the release this build compiles; make realsched-check runs it
// under every release's tag. internal/linkcheck's tests show a wrong
// signature is caught.
func TestLinkedSignatures(t *testing.T) {
	if err := linkcheck.Check(".", upstreamFlushBackoff, upstreamFlushLeftover); err != nil {
		t.Fatal(err)
	}
}
