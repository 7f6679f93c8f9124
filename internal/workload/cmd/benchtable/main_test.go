package main

import (
	"strings"
	"testing"
)

// Two rounds of one workload: the medians meet the 10× target, but the
// second round alone is 7.5×, under the 8× every round must reach.
const twoRounds = `BenchmarkAddPop/N=1000/floor-2 1 100 ns/op 50 cpu-ns/pod
BenchmarkAddPop/N=1000/schedq-2 1 100 ns/op 100 cpu-ns/pod
BenchmarkAddPop/N=1000/upstream-2 1 100 ns/op 1500 cpu-ns/pod
BenchmarkAddPop/N=1000/floor-2 1 100 ns/op 50 cpu-ns/pod
BenchmarkAddPop/N=1000/schedq-2 1 100 ns/op 100 cpu-ns/pod
BenchmarkAddPop/N=1000/upstream-2 1 100 ns/op 750 cpu-ns/pod
`

func TestRoundsAndFloor(t *testing.T) {
	r, err := parse("v1.33", strings.NewReader(twoRounds))
	if err != nil {
		t.Fatal(err)
	}
	rw := row{"AddPop/N=1000", "cpu-ns/pod"}
	sv, _, _ := r.get(rw.workload, "schedq", rw.unit)
	uv, um, _ := r.get(rw.workload, "upstream", rw.unit)
	if s, lo := minRound(sv, uv); lo != 7.5 || s != "7.50×" {
		t.Errorf("min round = %s (%v), want 7.50× (the second round's 750/100)", s, lo)
	}
	if got := floorCell(r, rw, "schedq"); got != "2.00×" {
		t.Errorf("× floor = %q, want 2.00× (100 against 50)", got)
	}
	_, x := ratio(100, um, true)
	missed := 0
	if v := verdict(rw, x, 7.5, &missed); missed != 1 || !strings.Contains(v, "missed") {
		t.Errorf("verdict %q (missed %d): a round under 8× must miss the target though the median ratio is %v", v, missed, x)
	}
	if v := verdict(rw, x, 8, &missed); missed != 1 || strings.Contains(v, "missed") {
		t.Errorf("verdict %q (missed %d): every round at 8× and the median at %v meet it", v, missed, x)
	}
	if v := verdict(row{"AddPop/N=1000", "ns/pod"}, 1, 1, &missed); v != "" || missed != 1 {
		t.Errorf("wall time has no target, got %q", v)
	}
}
