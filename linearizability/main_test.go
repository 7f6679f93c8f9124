package linearizability_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every history ends with Close, which must release every blocked Pop: a
// goroutine left behind fails the package.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
