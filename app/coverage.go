package app

import (
	"fmt"
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
// EXPERIMENTS.md, coverage), run with its defaults: FW's planar
// (Table 6) and k-RR (Table 5) populations of 10,000 users on the
// embedded San Francisco grid, CEM's census population on the embedded
// head of US Census 1990.
var measuredCoverage = []MeasuredCoverage{}

// Under-coverage: a per-cell coverage below 93%, or a band or TV bound
// that held in under 85% of the runs (with 20 runs at the nominal 95%,
// four misses or more have probability 1.6%).
const (
	underCell = 0.93
	underRun  = 0.85
)

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
		if m.Band < underRun {
			parts = append(parts, fmt.Sprintf("the band held every cell in %s of the runs", percent(m.Band)))
		}
		if m.TV < underRun {
			parts = append(parts, fmt.Sprintf("the TV bound held in %s of the runs", percent(m.TV)))
		}
		if len(parts) == 0 {
			return ""
		}
		what := map[string]string{"planar": "FW's planar population", "krr": "FW's k-RR population", "census": "CEM's census population"}[pop]
		return fmt.Sprintf("%s's intervals under-cover on populations like this one: in privmap's coverage experiment (%s, %d runs) %s, where 95%% was claimed — read them as too narrow",
			methodName(method), what, m.Runs, strings.Join(parts, ", "))
	}
	return ""
}
