//go:build race

package conformance

// raceEnabled: this test binary runs with the race detector, so a module
// built for a test is built with it too (and shares its build cache).
const raceEnabled = true
