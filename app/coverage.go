package app

import (
	"fmt"
	"math"
	"strings"

	"github.com/privmap/privmap/core"
)

// A MeasuredCoverage is what privmap's coverage experiment measured of
// one estimator's 95% bootstrap intervals on one of its populations
// (privmap experiment -name coverage; docs/EXPERIMENTS.md, coverage):
// the share of cells whose interval held the truth, and of runs whose
// band held every cell and whose TV bound held the estimate's TV, over
// Runs runs.
type MeasuredCoverage struct {
	Method         core.Method
	Population     string // "planar", "krr" or "census", as populationOf names them
	Cell, Band, TV float64
	Runs           int
}

// measuredCoverage is the coverage experiment's table (docs/
// EXPERIMENTS.md, coverage; privmap experiment -name coverage, seed 1):
// FW's planar (Table 6) and k-RR (Table 5) populations of 10,000 users
// on the embedded San Francisco grid, CEM's census population on the
// embedded head of US Census 1990.
var measuredCoverage = []MeasuredCoverage{
	{Method: core.MethodGIBU, Population: "planar", Cell: 0.9852, Band: 1.0000, TV: 0.9000, Runs: 10},
	{Method: core.MethodIBUM, Population: "planar", Cell: 0.9951, Band: 1.0000, TV: 0.7000, Runs: 10},
	{Method: core.MethodINVM, Population: "planar", Cell: 0.9677, Band: 0.6000, TV: 0.7000, Runs: 10},
	{Method: core.MethodIBUR, Population: "planar", Cell: 0.9711, Band: 1.0000, TV: 1.0000, Runs: 10},
	{Method: core.MethodGIBU, Population: "krr", Cell: 0.9646, Band: 1.0000, TV: 1.0000, Runs: 10},
	{Method: core.MethodIBUM, Population: "krr", Cell: 0.9643, Band: 0.9000, TV: 1.0000, Runs: 10},
	{Method: core.MethodINVM, Population: "krr", Cell: 0.9622, Band: 0.8000, TV: 1.0000, Runs: 10},
	{Method: core.MethodIBUR, Population: "krr", Cell: 0.3385, Band: 1.0000, TV: 0.0000, Runs: 10},
	{Method: core.MethodEM, Population: "census", Cell: 0.9587, Band: 0.3000, TV: 1.0000, Runs: 10},
	{Method: core.MethodCEM, Population: "census", Cell: 0.9467, Band: 0.3000, TV: 1.0000, Runs: 10},
	{Method: core.MethodINVM, Population: "census", Cell: 0.9685, Band: 0.8000, TV: 1.0000, Runs: 10},
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

// CoverageNote returns what the coverage experiment found where method's
// intervals held less often than they claim on a population like s's,
// or "": the reader of an interval learns that it is too narrow there,
// and by how much.
func CoverageNote(method core.Method, s *core.Study) string {
	pop := populationOf(s)
	for _, m := range measuredCoverage {
		if m.Method != method || m.Population != pop {
			continue
		}
		var parts []string
		if m.Cell < underCell {
			parts = append(parts, fmt.Sprintf("each cell's interval held the truth for only %s of the cells", percent(m.Cell)))
		}
		if underRuns(m.Band, m.Runs) {
			parts = append(parts, fmt.Sprintf("the band held every cell in %s of the runs", percent(m.Band)))
		}
		if underRuns(m.TV, m.Runs) {
			parts = append(parts, fmt.Sprintf("the TV bound held in %s of the runs", percent(m.TV)))
		}
		if len(parts) == 0 {
			return ""
		}
		what := map[string]string{"planar": "FW's planar population", "krr": "FW's k-RR population", "census": "CEM's census population"}[pop]
		return fmt.Sprintf("%s's intervals under-cover on populations like this one: in privmap's coverage experiment (%s, %d runs) %s, where 95%% was claimed — read them as too narrow",
			method.Title(), what, m.Runs, strings.Join(parts, ", "))
	}
	return ""
}
