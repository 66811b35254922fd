package interval

import (
	"fmt"
	"math"
	"strings"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/core"
)

// A MeasuredCoverage is what privmap's coverage experiment measured of
// one estimator's 95% intervals by one method on one of its populations
// (privmap experiment -name coverage; docs/EXPERIMENTS.md, coverage):
// the share of cells whose interval held the truth — the distribution
// of the run's own data — over all cells and over the cells with
// people, and of runs whose band held every cell and whose TV bound
// held the estimate's TV (NaN for intervals without one), over Runs
// runs, on an alphabet of Cells symbols (Where says which, in words).
type MeasuredCoverage struct {
	Method     core.Method
	Interval   core.IntervalMethod
	Population string // "planar", "krr" or "census", as populationOf names them
	Cell       float64
	People     float64
	Band, TV   float64
	Runs       int
	Cells      int
	Where      string
}

// measuredCoverage is the coverage experiment's table (docs/
// EXPERIMENTS.md, coverage; privmap experiment -name coverage -runs 10
// -users 20000 -data gowalla_sfbox_checkins.tsv, seed 1): FW's planar
// (Table 6) and k-RR (Table 5) populations of 20,000 users on San
// Francisco's Gowalla check-ins, and CEM's census population (1,100
// users) on the embedded head of US Census 1990, where the experiment
// ran em, gibu's other name; and GIBU's bootstrap and windowed profile
// on New York's 9,024 cells (simulate -n 200000 -seed r, estimate -ci
// 0.95).
var measuredCoverage = []MeasuredCoverage{
	{Method: core.MethodGIBU, Interval: core.IntervalBootstrap, Population: "planar", Cell: 0.9780, People: 0.9650, Band: 0.8000, TV: 1.0000, Runs: 10, Cells: 345},
	{Method: core.MethodGIBU, Interval: core.IntervalProfile, Population: "planar", Cell: 0.9899, People: 0.9852, Band: 1.0000, TV: math.NaN(), Runs: 10, Cells: 345},
	// The windowed profile, GIBU's default on such a grid since issue 45
	// (simulate -n 20000 -seed r, r = 1…10, estimate -ci 0.95).
	{Method: core.MethodGIBU, Interval: core.IntervalLocalProfile, Population: "planar", Cell: 0.9893, People: 0.9849, Band: 1.0000, TV: math.NaN(), Runs: 10, Cells: 345},
	{Method: core.MethodIBUM, Interval: core.IntervalBootstrap, Population: "planar", Cell: 0.9890, People: 0.9825, Band: 1.0000, TV: 0.7000, Runs: 10, Cells: 345},
	{Method: core.MethodIBUR, Interval: core.IntervalBootstrap, Population: "planar", Cell: 0.9496, People: 0.9567, Band: 0.5000, TV: 1.0000, Runs: 10, Cells: 345},
	{Method: core.MethodINVM, Interval: core.IntervalBootstrap, Population: "planar", Cell: 0.9794, People: 0.9673, Band: 0.7000, TV: 0.9000, Runs: 10, Cells: 345},
	{Method: core.MethodGIBU, Interval: core.IntervalBootstrap, Population: "krr", Cell: 0.9806, People: 0.9746, Band: 1.0000, TV: 1.0000, Runs: 10, Cells: 345},
	{Method: core.MethodGIBU, Interval: core.IntervalProfile, Population: "krr", Cell: 0.9800, People: 0.9806, Band: 1.0000, TV: math.NaN(), Runs: 10, Cells: 345},
	{Method: core.MethodIBUM, Interval: core.IntervalBootstrap, Population: "krr", Cell: 0.9733, People: 0.9639, Band: 1.0000, TV: 1.0000, Runs: 10, Cells: 345},
	{Method: core.MethodIBUR, Interval: core.IntervalBootstrap, Population: "krr", Cell: 0.4316, People: 0.6845, Band: 1.0000, TV: 0.3000, Runs: 10, Cells: 345},
	{Method: core.MethodINVM, Interval: core.IntervalBootstrap, Population: "krr", Cell: 0.9794, People: 0.9709, Band: 1.0000, TV: 1.0000, Runs: 10, Cells: 345},
	{Method: core.MethodGIBU, Interval: core.IntervalBootstrap, Population: "census", Cell: 0.9680, People: 0.7333, Band: 0.1000, TV: 1.0000, Runs: 10, Cells: 400},
	{Method: core.MethodGIBU, Interval: core.IntervalProfile, Population: "census", Cell: 0.9938, People: 0.9688, Band: 1.0000, TV: math.NaN(), Runs: 10, Cells: 400},
	{Method: core.MethodCEM, Interval: core.IntervalBootstrap, Population: "census", Cell: 0.9472, People: 0.5604, Band: 0.0000, TV: 1.0000, Runs: 10, Cells: 400},
	{Method: core.MethodINVM, Interval: core.IntervalBootstrap, Population: "census", Cell: 0.9730, People: 0.7750, Band: 0.7000, TV: 1.0000, Runs: 10, Cells: 400},
	// New York (docs/EXPERIMENTS.md, coverage (e)): FW Table 7 on Gowalla's
	// check-ins, first a person, 200,000 reports drawn from them, 0.5 km;
	// the bootstrap with core.ZeroEnds (the TV bound over the runs that
	// printed it).
	{Method: core.MethodGIBU, Interval: core.IntervalBootstrap, Population: "planar", Cell: 0.9860, People: 0.8513, Band: 0.6000, TV: 1.0000, Runs: 5, Cells: 9024,
		Where: "FW Table 7 on New York's Gowalla check-ins, 9,024 cells of 0.5 km, 200,000 reports"},
	// … and the windowed profile, GIBU's default there (simulate -seed
	// r, r = 1…5).
	{Method: core.MethodGIBU, Interval: core.IntervalLocalProfile, Population: "planar", Cell: 0.9939, People: 0.9457, Band: 1.0000, TV: math.NaN(), Runs: 5, Cells: 9024,
		Where: "FW Table 7 on New York's Gowalla check-ins, 9,024 cells of 0.5 km, 200,000 reports"},
}

// underCell is the per-cell coverage below which a method is said to
// under-cover: a share of cells, whose misses are correlated within a
// run, so a margin below the nominal 95% rather than a test.
const underCell = 0.93

// underRuns reports whether a band or bound that held in share of runs
// runs is evidence of holding less often than the nominal 95%: a run
// holds or not, so the held runs k are binomial, and P(K ≤ k) < 5% at
// probability 0.95 (with 6 runs, 4 held or fewer; with 20, 16 or fewer).
func underRuns(share float64, runs int) bool {
	k := int(math.Round(share * float64(runs)))
	return binomialCDF(k, runs, 0.95) < 0.05
}

// binomialCDF returns P(K ≤ k) for K ~ Bin(n, p), 0 < p < 1, summed
// from log-gamma terms (n is a number of runs, a few hundred at most).
func binomialCDF(k, n int, p float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	sum := 0.0
	for i := 0; i <= k && i <= n; i++ {
		sum += math.Exp(lg(n) - lg(i) - lg(n-i) + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return sum
}

// populationOf classes a study's population as the coverage experiment
// measured them: "census" on a categorical alphabet, "krr" where every
// mechanism is a randomized response (k-RR, uRR), "planar" where any is
// a geometric or planar geometric mechanism; "" for the others.
func populationOf(s *core.Study) string {
	if s.Alphabet.Kind == core.KindCategorical {
		return "census"
	}
	rr := true
	for _, m := range s.Mechanisms {
		switch m.Kind {
		case core.KindPlanar, core.KindGeo:
			return "planar"
		case core.KindKRR, core.KindURR:
		default:
			rr = false
		}
	}
	if rr && len(s.Mechanisms) > 0 {
		return "krr"
	}
	return ""
}

// measured returns the coverage experiment's row of method's intervals
// by iv on a population like s's (em is gibu), measured on the alphabet
// nearest s's in size (by ratio): an interval's coverage changes with the
// map's size, as the people per cell thin (GIBU's bootstrap held 96.5%
// of the cells with people on San Francisco's 345 cells and 79% on New
// York's 9,024).
func measured(method core.Method, iv core.IntervalMethod, s *core.Study) (MeasuredCoverage, bool) {
	pop := populationOf(s)
	if method == core.MethodEM {
		method = core.MethodGIBU
	}
	k := float64(max(1, s.Alphabet.Len()))
	var best MeasuredCoverage
	found, far := false, math.Inf(1)
	for _, m := range measuredCoverage {
		if m.Method != method || m.Interval != iv || m.Population != pop {
			continue
		}
		if d := math.Abs(math.Log(k / float64(max(1, m.Cells)))); d < far {
			best, found, far = m, true, d
		}
	}
	return best, found
}

// CoverageHeld returns, for the legend of an uncertainty map, the share
// of the cells with people whose intervals held the truth in the
// coverage experiment for method's intervals by iv on a population like
// s's, to the percent ("held 99%"), or "" when it measured none.
func CoverageHeld(method core.Method, iv core.IntervalMethod, s *core.Study) string {
	m, ok := measured(method, iv, s)
	if !ok || math.IsNaN(m.People) {
		return ""
	}
	return fmt.Sprintf("held %.0f%%", 100*m.People)
}

// CoverageNote returns what the coverage experiment found where method's
// intervals by iv held less often than they claim on a population like
// s's, or "": the reader of an interval learns that it is too narrow
// there, and by how much.
func CoverageNote(method core.Method, iv core.IntervalMethod, s *core.Study) string {
	m, ok := measured(method, iv, s)
	if !ok {
		return ""
	}
	var parts []string
	if m.People < underCell {
		parts = append(parts, fmt.Sprintf("each cell's interval held the truth for only %s of the cells with people", human.Percent(m.People)))
	}
	if m.Cell < underCell {
		parts = append(parts, fmt.Sprintf("for %s of all cells", human.Percent(m.Cell)))
	}
	if underRuns(m.Band, m.Runs) {
		parts = append(parts, fmt.Sprintf("the band held every cell in %s of the runs", human.Percent(m.Band)))
	}
	if !math.IsNaN(m.TV) && underRuns(m.TV, m.Runs) {
		parts = append(parts, fmt.Sprintf("the TV bound held in %s of the runs", human.Percent(m.TV)))
	}
	if len(parts) == 0 {
		return ""
	}
	what := m.Where
	if what == "" {
		what = map[string]string{"planar": "FW's planar population", "krr": "FW's k-RR population", "census": "CEM's census population"}[m.Population]
	}
	return fmt.Sprintf("%s's %s intervals under-cover on populations like this one: in privmap's coverage experiment (%s, %d runs) %s, where 95%% was claimed — read them as too narrow",
		method.Title(), m.Interval, what, m.Runs, strings.Join(parts, ", "))
}
