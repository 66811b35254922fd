package app

import (
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
		{Method: core.MethodGIBU, Population: "krr", Cell: 0.96, Band: 0.9, TV: 1, Runs: 20},
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
