package properties

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedq/schedq/schedqtest"
)

// FuzzQueue is TestStateMachine driven by the fuzzer: the input decodes,
// one byte per choice, into a config and then a sequence of operations of
// the scenario language (each operation's first byte picks its kind in
// schedqtest.Kinds, the following bytes its arguments), and the
// implementation and the model are compared after every step exactly as in
// the state machine. A failing input prints its operations as a scenario
// file that replays the failure, as the state machine does.
//
// Plain `go test` runs the seed corpus in testdata/fuzz/FuzzQueue; `make
// fuzz` fuzzes for FUZZTIME. Regenerate the seeds with
// SCHEDQ_WRITE_FUZZ_SEEDS=1 go test -run TestWriteFuzzSeeds ./properties/.
func FuzzQueue(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &schedqtest.ByteChooser{Data: data}
		p, g := run(t, "FuzzQueue", classic, c)
		defer p.close()
		for p.steps() < maxFuzzSteps && !c.Exhausted() {
			g.Step(c)
		}
	})
}

// FuzzQueueHints is FuzzQueue in the queueing-hints profile. Its seeds are
// made when it runs, the way TestWriteFuzzSeeds makes FuzzQueue's (the
// same choices, decoded in this profile), so plain `go test` runs them
// without a corpus directory of its own.
func FuzzQueueHints(f *testing.F) {
	for i := range 16 {
		c := &recordingChooser{r: rand.New(rand.NewPCG(uint64(i), 0x5eed))}
		p, g := run(nopFuzzReporter{f}, "FuzzQueueHints", hints, c)
		steps := 10 + c.r.IntN(110)
		for p.steps() < steps {
			g.Step(c)
		}
		p.close()
		f.Add(c.out)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &schedqtest.ByteChooser{Data: data}
		p, g := run(t, "FuzzQueueHints", hints, c)
		defer p.close()
		for p.steps() < maxFuzzSteps && !c.Exhausted() {
			g.Step(c)
		}
	})
}

// nopFuzzReporter lets FuzzQueueHints drive a pair to record its seeds; a
// failure there is a failure of the fuzz test.
type nopFuzzReporter struct{ f *testing.F }

func (r nopFuzzReporter) Helper()                           {}
func (r nopFuzzReporter) Logf(string, ...any)               {}
func (r nopFuzzReporter) Fatalf(format string, args ...any) { r.f.Fatalf(format, args...) }

// maxFuzzSteps bounds one input's run; longer inputs are not more useful.
const maxFuzzSteps = 300

// recordingChooser makes random choices and records them as the bytes a
// byteChooser decodes back into the same choices.
type recordingChooser struct {
	r   *rand.Rand
	out []byte
}

func (c *recordingChooser) Choose(n int, _ string) int {
	if n <= 1 {
		c.out = append(c.out, 0)
		return 0
	}
	v := c.r.IntN(n)
	c.out = append(c.out, byte(v))
	return v
}

// nopReporter lets the seed writer drive a pair without a test.
type nopReporter struct{ t *testing.T }

func (r nopReporter) Helper()                           {}
func (r nopReporter) Logf(string, ...any)               {}
func (r nopReporter) Fatalf(format string, args ...any) { r.t.Fatalf(format, args...) }

// TestWriteFuzzSeeds writes the seed corpus: random runs of 10 to 120
// operations whose choices are recorded as bytes, from fixed PRNG seeds so
// the corpus is reproducible. Pop-heavy runs are favoured so the seeds
// reach backoffQ, unschedulablePods and the flushes.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("SCHEDQ_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set SCHEDQ_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzQueue")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzQueue")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const seeds = 32
	for i := range seeds {
		c := &recordingChooser{r: rand.New(rand.NewPCG(uint64(i), 0x5eed))}
		p, g := run(nopReporter{t}, "TestWriteFuzzSeeds", classic, c)
		steps := 10 + c.r.IntN(110)
		for p.steps() < steps {
			g.Step(c)
		}
		p.close()
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", c.out)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
