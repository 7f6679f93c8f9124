package properties

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: every
// queue the suites create is closed, and a Pop the harness gave up on (see
// pair.pop) is released by that Close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
