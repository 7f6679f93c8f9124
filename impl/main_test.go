package impl_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind (R13):
// every queue a test starts with Run must be closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
