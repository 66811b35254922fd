package interval

import (
	"math"
	"strings"
	"testing"

	"github.com/privmap/privmap/core"
)

// TestCoverageNote checks the note on an under-covering method: said
// for the population and interval method measured and only where a
// figure is below its threshold, nothing for a method that held; and
// the legend's figure of the cells with people.
func TestCoverageNote(t *testing.T) {
	saved := measuredCoverage
	defer func() { measuredCoverage = saved }()
	boot, prof := core.IntervalBootstrap, core.IntervalProfile
	measuredCoverage = []MeasuredCoverage{
		{Method: core.MethodIBUR, Interval: boot, Population: "krr", Cell: 0.34, People: 0.3, Band: 0.95, TV: 0.1, Runs: 20},
		// 17 of 20 bands: P(K ≤ 17) = 7.5% at 0.95, no evidence.
		{Method: core.MethodGIBU, Interval: boot, Population: "krr", Cell: 0.96, People: 0.95, Band: 0.85, TV: 1, Runs: 20},
		{Method: core.MethodGIBU, Interval: boot, Population: "planar", Cell: 0.97, People: 0.859, Band: 0.8, TV: 1, Runs: 20},
		{Method: core.MethodGIBU, Interval: prof, Population: "planar", Cell: 0.99, People: 0.993, Band: 1, TV: math.NaN(), Runs: 20},
	}
	grid := core.Alphabet{Kind: core.KindGrid, Rows: 2, Cols: 2, South: 37, West: -122, CellKm: 1}
	krr := &core.Study{Alphabet: grid, Mechanisms: []core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}}}
	planar := &core.Study{Alphabet: grid, Mechanisms: []core.MechanismSpec{{ID: "k", Kind: core.KindKRR, Epsilon: 1}, {ID: "g", Kind: core.KindPlanar, Epsilon: 1}}}
	note := CoverageNote(core.MethodIBUR, boot, krr)
	for _, want := range []string{"[IBU]_R's bootstrap intervals under-cover", "FW's k-RR population, 20 runs", "only 30% of the cells with people", "for 34% of all cells", "the TV bound held in 10% of the runs", "too narrow"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if strings.Contains(note, "band") {
		t.Errorf("note %q names the band, which held", note)
	}
	if note := CoverageNote(core.MethodGIBU, boot, planar); !strings.Contains(note, "only 85.9% of the cells with people") || !strings.Contains(note, "the band held every cell in 80% of the runs") {
		t.Errorf("GIBU's bootstrap on the planar population: %q", note)
	}
	for _, tc := range []struct {
		m  core.Method
		iv core.IntervalMethod
		s  *core.Study
	}{{core.MethodGIBU, boot, krr}, {core.MethodGIBU, prof, planar}, {core.MethodIBUR, boot, planar}, {core.MethodEM, boot, krr}} {
		if n := CoverageNote(tc.m, tc.iv, tc.s); n != "" {
			t.Errorf("%s by %s on %s: %q, want none", tc.m, tc.iv, populationOf(tc.s), n)
		}
	}
	if got := CoverageHeld(core.MethodGIBU, prof, planar); got != "held 99%" {
		t.Errorf("legend %q", got)
	}
	if got := CoverageHeld(core.MethodGIBU, prof, krr); got != "" {
		t.Errorf("legend of an unmeasured population %q", got)
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

// TestCoverageNoteMeasured reads the experiment's own table: GIBU's
// profile intervals, the default, hold on the cells with people of the
// planar population and say so in the legend; every estimator the
// experiment measured has a row for each population.
func TestCoverageNoteMeasured(t *testing.T) {
	grid := core.Alphabet{Kind: core.KindGrid, Rows: 2, Cols: 2, South: 37, West: -122, CellKm: 1}
	planar := &core.Study{Alphabet: grid, Mechanisms: []core.MechanismSpec{{ID: "g", Kind: core.KindPlanar, Epsilon: 1}}}
	if n := CoverageNote(core.MethodGIBU, core.IntervalProfile, planar); n != "" {
		t.Errorf("GIBU's profile intervals on the planar population: %q", n)
	}
	if m, ok := measured(core.MethodGIBU, core.IntervalProfile, planar); !ok || m.People < 0.95 {
		t.Errorf("GIBU's profile intervals on the planar population: %+v", m)
	}
	rows := map[string]int{}
	for _, m := range measuredCoverage {
		rows[m.Population]++
		if !(m.Cell >= 0 && m.Cell <= 1 && m.People >= 0 && m.People <= 1 && m.Runs > 0) {
			t.Errorf("row %+v", m)
		}
	}
	if rows["planar"] != 8 || rows["krr"] != 5 || rows["census"] != 4 {
		t.Errorf("rows by population %v", rows)
	}
	// A city reads New York's row, a town San Francisco's: GIBU's
	// bootstrap under-covers on the first and not on the second.
	mix := []core.MechanismSpec{{ID: "g", Kind: core.KindPlanar, Epsilon: 1}, {ID: "k", Kind: core.KindKRR, Epsilon: 3}}
	city := &core.Study{Alphabet: core.Alphabet{Kind: core.KindGrid, Rows: 96, Cols: 94, South: 40.5, West: -74.3, CellKm: 0.5}, Mechanisms: mix}
	town := &core.Study{Alphabet: core.Alphabet{Kind: core.KindGrid, Rows: 15, Cols: 23, South: 37.7, West: -122.5, CellKm: 0.5}, Mechanisms: mix}
	if m, ok := measured(core.MethodGIBU, core.IntervalBootstrap, city); !ok || m.Cells != 9024 {
		t.Errorf("GIBU's bootstrap on a city read %+v", m)
	}
	if n := CoverageNote(core.MethodGIBU, core.IntervalBootstrap, city); !strings.Contains(n, "New York") || !strings.Contains(n, "of the cells with people") {
		t.Errorf("GIBU's bootstrap on a city: %q", n)
	}
	// The city's default, the windowed profile, holds there, and its
	// legend says by how much.
	if got := (CI{}).MethodFor(core.MethodGIBU, city); got != core.IntervalLocalProfile {
		t.Errorf("a city's GIBU intervals by %s, want the windowed profile", got)
	}
	if n := CoverageNote(core.MethodGIBU, core.IntervalLocalProfile, city); n != "" {
		t.Errorf("GIBU's windowed profile on a city: %q", n)
	}
	if h := CoverageHeld(core.MethodGIBU, core.IntervalLocalProfile, city); h != "held 95%" {
		t.Errorf("GIBU's windowed profile on a city: legend %q", h)
	}
	if m, ok := measured(core.MethodGIBU, core.IntervalBootstrap, town); !ok || m.Cells != 345 {
		t.Errorf("GIBU's bootstrap on a town read %+v", m)
	}
	if n := CoverageNote(core.MethodGIBU, core.IntervalBootstrap, town); n != "" {
		t.Errorf("GIBU's bootstrap on a town: %q", n)
	}
}
