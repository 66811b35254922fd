package app

import (
	"math"
	"strings"
	"testing"

	"github.com/privmap/privmap/core"
)

// TestCoverageNote checks the note on an under-covering method: said
// for the population measured and only where a figure is below its
// threshold, nothing for a method that held.
func TestCoverageNote(t *testing.T) {
	saved := measuredCoverage
	defer func() { measuredCoverage = saved }()
	measuredCoverage = []MeasuredCoverage{
		{Method: core.MethodIBUR, Population: "krr", Cell: 0.34, Band: 0.95, TV: 0.1, Runs: 20},
		// 17 of 20 bands: P(K ≤ 17) = 7.5% at 0.95, no evidence.
		{Method: core.MethodGIBU, Population: "krr", Cell: 0.96, Band: 0.85, TV: 1, Runs: 20},
	}
	grid := core.Alphabet{Kind: core.KindGrid, Rows: 2, Cols: 2, South: 37, West: -122, CellKm: 1}
	krr := &core.Study{Alphabet: grid, Mechanisms: []core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}}}
	planar := &core.Study{Alphabet: grid, Mechanisms: []core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}, {ID: "g", Kind: core.KindPlanar, Epsilon: 1}}}
	note := CoverageNote(core.MethodIBUR, krr)
	for _, want := range []string{"[IBU]_R's intervals under-cover", "FW's k-RR population, 20 runs", "only 34% of the cells", "the TV bound held in 10% of the runs", "too narrow"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if strings.Contains(note, "band") {
		t.Errorf("note %q names the band, which held", note)
	}
	for _, tc := range []struct {
		m core.Method
		s *core.Study
	}{{core.MethodGIBU, krr}, {core.MethodIBUR, planar}, {core.MethodEM, krr}} {
		if n := CoverageNote(tc.m, tc.s); n != "" {
			t.Errorf("%s on %s: %q, want none", tc.m, populationOf(tc.s), n)
		}
	}
	census := &core.Study{Alphabet: core.Alphabet{Kind: core.KindCategorical, Size: 4}}
	if populationOf(census) != "census" || populationOf(planar) != "planar" || populationOf(krr) != "krr" {
		t.Errorf("populations %q %q %q", populationOf(census), populationOf(planar), populationOf(krr))
	}
}

// TestUnderRuns checks the binomial test of a share of runs against the
// nominal 95%: with 6 runs, 4 held is evidence (P = 3.3%) and 5 is not
// (P = 26.5%); with 20 runs, 16 is (P = 1.6%) and 17 is not (7.5%).
func TestUnderRuns(t *testing.T) {
	for _, tc := range []struct {
		k, n int
		p    float64
	}{{4, 6, 0.0328}, {5, 6, 0.2649}, {16, 20, 0.0159}, {17, 20, 0.0755}} {
		if got := binomialCDF(tc.k, tc.n, 0.95); math.Abs(got-tc.p) > 5e-4 {
			t.Errorf("P(K ≤ %d | %d) = %.4f, want %.4f", tc.k, tc.n, got, tc.p)
		}
		if under := underRuns(float64(tc.k)/float64(tc.n), tc.n); under != (tc.p < 0.05) {
			t.Errorf("%d of %d: under %v", tc.k, tc.n, under)
		}
	}
}

// TestCoverageNoteMeasured reads the experiment's own table: [IBU]_R
// under-covers on k-RR populations, EM's band on census tables, GIBU
// holds on the planar population.
func TestCoverageNoteMeasured(t *testing.T) {
	grid := core.Alphabet{Kind: core.KindGrid, Rows: 2, Cols: 2, South: 37, West: -122, CellKm: 1}
	krr := &core.Study{Alphabet: grid, Mechanisms: []core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}}}
	planar := &core.Study{Alphabet: grid, Mechanisms: []core.MechanismSpec{{ID: "g", Kind: core.KindPlanar, Epsilon: 1}}}
	census := &core.Study{Alphabet: core.Alphabet{Kind: core.KindCategorical, Size: 4}}
	if n := CoverageNote(core.MethodIBUR, krr); !strings.Contains(n, "only 33.9% of the cells") {
		t.Errorf("[IBU]_R on k-RR: %q", n)
	}
	if n := CoverageNote(core.MethodEM, census); !strings.Contains(n, "the band held every cell in 30% of the runs") {
		t.Errorf("EM on a census table: %q", n)
	}
	if n := CoverageNote(core.MethodGIBU, planar); n != "" {
		t.Errorf("GIBU on the planar population: %q", n)
	}
}
