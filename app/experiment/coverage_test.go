package experiment

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core"
)

// TestCoverageMetrics checks the coverage metrics on intervals made by
// hand: of four cells holding 5, 4, 1 and 0 of 10 people, the first two
// and the empty one are inside their intervals, the third (estimated 0)
// is not; the band holds all four; the estimate's TV to the truth, 0.1,
// is within the bound 0.2.
func TestCoverageMetrics(t *testing.T) {
	people := []int{5, 4, 1, 0}
	theta := []float64{0.6, 0.4, 0, 0}
	iv := &core.Intervals{Lo: []float64{0.4, 0.3, 0, 0}, Hi: []float64{0.7, 0.5, 0.05, 0.01},
		BandLo: []float64{0.3, 0.2, 0, 0}, BandHi: []float64{0.8, 0.6, 0.2, 0.1}, TV: 0.2}
	got := coverage(people, theta, iv)
	nan := math.NaN()
	want := []float64{3.0 / 4, 1, 1, (0.3 + 0.2 + 0.05 + 0.01) / 4, 1, 2.0 / 3, 1, 0, 1, 1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("%s = %v, want %v", coverageMetrics[i], got[i], want[i])
		}
	}
	iv.BandHi[2], iv.TV = 0.09, 0.09
	if got := coverage(people, theta, iv); got[1] != 0 || got[2] != 0 {
		t.Errorf("band and TV bound missed: %v", got)
	}
	// No TV bound (profile intervals) and no cell of 2–4 people: NaN.
	iv.TV = nan
	if got := coverage([]int{5, 0, 1, 0}, theta, iv); !math.IsNaN(got[2]) || !math.IsNaN(got[8]) || got[7] != 0 {
		t.Errorf("nothing to measure: %v", got)
	}
}

// TestCoverageMeasure runs one measurement of each kind of estimator
// through measureCoverage on 2,000 users of two k-RR on six symbols:
// every metric a finite number in its range, but those with nothing to
// measure here (no cell of one to four people; the profile's TV bound).
func TestCoverageMeasure(t *testing.T) {
	a := core.Alphabet{Kind: core.KindCategorical, Size: 6}
	s := &core.Study{Alphabet: a, Mechanisms: []core.MechanismSpec{{ID: "k1", Kind: core.KindKRR, Epsilon: 1}, {ID: "k2", Kind: core.KindKRR, Epsilon: 3}}}
	mechs, err := pipeline.BuildMechanisms(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	truth := []float64{0.3, 0.25, 0.2, 0.15, 0.1, 0}
	g, people, err := drawPeople(context.Background(), rand.New(rand.NewPCG(1, 1)), mechs, []int{1000, 1000}, truth)
	if err != nil {
		t.Fatal(err)
	}
	if people[5] != 0 || people[0]+people[1]+people[2]+people[3]+people[4] != 2000 || g.N() != 2000 {
		t.Fatalf("people %v, %d reports", people, g.N())
	}
	for _, v := range []Variant{gibu, coverProfile, coverInvM, coverCEM} {
		vals, err := measureCoverage(context.Background(), v, s, mechs, g, people, 7)
		if err != nil {
			t.Fatalf("%s: %v", v.Label, err)
		}
		for i, m := range coverageMetrics {
			// NaN where there is nothing to measure (no such cells, no
			// TV bound), which runJob writes no row of.
			nothing := m == Cover1 || m == Cover2to4 || m == CoverTV && v.CI == core.IntervalProfile
			if err := checkValue(m, vals[i]); err != nil && !(nothing && math.IsNaN(vals[i])) {
				t.Errorf("%s: %v", v.Label, err)
			}
		}
		if !slices.Contains([]float64{0, 1}, vals[1]) || vals[0] < 0.5 {
			t.Errorf("%s: %v", v.Label, vals)
		}
	}
}

// TestShareInterval checks the interval of a share of runs: Clopper and
// Pearson's, 0 to 0.4593 for none of 6 and 0.2228 to 0.9567 for 4 of 6
// (the exact binomial bounds), where Student's t ran past 1; a metric
// that is not a share keeps Student's t.
func TestShareInterval(t *testing.T) {
	rows := func(metric Metric, vs ...float64) []Row {
		var out []Row
		for i, v := range vs {
			out = append(out, Row{Panel: "a", Setting: "s", Users: 10, Method: "m", Run: i, Metric: string(metric), Value: v})
		}
		return out
	}
	panels := []Panel{{Name: "a", Settings: []Setting{{Name: "s", X: 10, N: 10}}}}
	for _, tc := range []struct {
		rows   []Row
		lo, hi float64
		share  bool
	}{
		{rows(CoverBand, 1, 1, 0, 1, 0, 1), 0.2228, 0.9567, true},
		{rows(CoverTV, 0, 0, 0, 0, 0, 0), 0, 0.4593, true},
		{rows(CoverTV, 1, 1, 1, 1, 1, 1), 0.5407, 1, true},
		{rows(CoverCell, 0.9, 0.9, 0.9), 0.9, 0.9, false},
	} {
		pts := Points(panels, tc.rows)
		if len(pts) != 1 {
			t.Fatalf("%d points", len(pts))
		}
		p := pts[0]
		if p.Share != tc.share || math.Abs(p.Lo-tc.lo) > 5e-5 || math.Abs(p.Hi-tc.hi) > 5e-5 {
			t.Errorf("%s %v: [%v, %v] share %v, want [%v, %v] %v", p.Metric, p.Values, p.Lo, p.Hi, p.Share, tc.lo, tc.hi, tc.share)
		}
	}
	if !strings.Contains(IntervalsOf(Points(panels, rows(CoverBand, 1, 0))), "Clopper and Pearson") {
		t.Error("the summary does not say how a share's interval was made")
	}
}
