package upstream

import "github.com/schedq/schedq/conformance"

// The known differences of the releases between v1.33 and v1.37, by
// scenario. The scenario files declare those of v1.33.13 and v1.37.2 by
// target name; a release between them behaves as one or the other, or
// neither, scenario by scenario, so its declarations are here, each with
// the releases it holds for (first and last minor) and the reason read in
// that release's code. A declaration that no longer fails fails as stale,
// so the ranges cannot drift.
type difference struct {
	first, last string // minor versions, e.g. "1.34"
	reason      string
	source      string
}

var differences = map[string][]difference{}

// releaseDifferences are the declarations that hold for r.
func releaseDifferences(r ReleaseInfo) map[string]conformance.KnownDifference {
	out := map[string]conformance.KnownDifference{}
	for sc, ds := range differences {
		for _, d := range ds {
			if minorIn(r.Minor(), d.first, d.last) {
				out[sc] = conformance.KnownDifference{Reason: d.reason, Source: d.source}
			}
		}
	}
	return out
}

// hintsRandomSkip is why the hints random runs do not apply to r, or "".
func hintsRandomSkip(r ReleaseInfo) string { return "" }

// minorIn reports whether minor m lies in [first, last] ("1.34" < "1.35").
func minorIn(m, first, last string) bool {
	n, f, l := minorNumber(m), minorNumber(first), minorNumber(last)
	return n >= f && n <= l
}

func minorNumber(m string) int {
	n := 0
	if i := len(m) - 2; i >= 0 {
		for _, c := range m[i:] {
			n = n*10 + int(c-'0')
		}
	}
	return n
}
