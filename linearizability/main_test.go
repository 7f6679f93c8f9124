package linearizability_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain prints the slowest porcupine check of the run, and fails the
// package on a goroutine left behind: every history ends with Close,
// which must release every blocked Pop.
func TestMain(m *testing.M) {
	code := m.Run()
	slowest.Lock()
	if slowest.n > 0 {
		fmt.Printf("linearizability: slowest porcupine check of %d: %v (%s)\n", slowest.n, slowest.elapsed.Round(time.Millisecond), slowest.what)
	}
	slowest.Unlock()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
