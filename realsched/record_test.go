package realsched

import (
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// TestModelPopNamesTheDisagreement: the trace check's verdict on a Pop, in
// both of its forms (serialised and unserialised), names a pod the model
// could not pop with the model's candidates (I5) and a wrong attempt count
// with both counts, and accepts the Pop the model makes.
func TestModelPopNamesTheDisagreement(t *testing.T) {
	for _, c := range []struct {
		name     string
		key      spec.PodKey
		attempts int
		want     string // "" for no disagreement
	}{
		{"the model's pop", "ns/a", 1, ""},
		{"a pod the model does not pop", "ns/b", 1, "Pop returned ns/b; the model's candidates are [ns/a] (I5)"},
		{"a wrong attempt count", "ns/a", 2, "Pop ns/a: attempts queue 2, model 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := model.New(spec.DefaultConfig(nil), time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"a", "b"} {
				if err := m.Add(schedqtest.PodRef{Name: name}.Build()); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, err := m.PopPod("ns/b"); err != nil {
				t.Fatal(err) // b in flight: the model's one candidate is a
			}
			got := modelPop(m, c.key, c.attempts)
			if got != c.want {
				t.Fatalf("modelPop(%s, attempts %d) = %q, want %q", c.key, c.attempts, got, c.want)
			}
			if strings.Contains(got, "(I5)") && len(m.PopCandidates()) != 1 {
				t.Errorf("a refused pop changed the model: candidates %v", m.PopCandidates())
			}
		})
	}
}
