package release

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/privmap/privmap/app/human"
)

// TestPlanRelease checks the planned ε of a Laplace release against the
// closed form: a rounded Laplace noise of scale λ = Δ/ε stays within ±t
// when |L| < t + ½, with probability 1 − e^{−(t+½)/λ}, so each count
// alone needs ε ≥ Δ·ln(1/(1−L))/(t+½) and all K at once
// ε ≥ Δ·ln(1/(1−L^{1/K}))/(t+½); the planned ε meets its bound and
// one a hundredth smaller would not; ε is printed as it was checked,
// to three significant figures.
func TestPlanRelease(t *testing.T) {
	for _, tc := range []struct {
		s      Spec
		cells  int
		target int
	}{
		{Spec{Mechanism: Laplace, EpsIn: 1, EpsOut: 1, Sensitivity: 1}, 9024, 10},
		{Spec{Mechanism: Laplace, EpsIn: 0.1, EpsOut: 0.1, Sensitivity: 2}, 40000, 50},
		{Spec{Mechanism: Geometric, EpsIn: 1, EpsOut: 1, Sensitivity: 1}, 384, 5},
		{Spec{Mechanism: PMGeometric, EpsIn: 1, EpsOut: 0.5, Break: 3, Sensitivity: 1}, 384, 8},
	} {
		rp, err := PlanFor(tc.s, tc.cells, 0.95, tc.target)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			spec Spec
			get  func(Interval) int
			k    float64
		}{{"each", rp.Each, func(iv Interval) int { return iv.Each }, 1}, {"all", rp.All, func(iv Interval) int { return iv.All }, float64(tc.cells)}} {
			iv, err := c.spec.Interval(tc.cells, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if c.get(iv) > tc.target {
				t.Errorf("%s %s: ε %v gives ±%d, above ±%d", tc.s.Mechanism, c.name, c.spec.EpsIn, c.get(iv), tc.target)
			}
			less := c.spec
			less.EpsIn, less.EpsOut = less.EpsIn*0.99, less.EpsOut*0.99
			if iv, _ := less.Interval(tc.cells, 0.95); c.get(iv) <= tc.target {
				t.Errorf("%s %s: ε %v, yet %v also gives ±%d", tc.s.Mechanism, c.name, c.spec.EpsIn, less.EpsIn, c.get(iv))
			}
			if math.Abs(c.spec.EpsOut/c.spec.EpsIn/(tc.s.EpsOut/tc.s.EpsIn)-1) > 0.01 {
				t.Errorf("%s %s: the ratio of ε beyond to within changed", tc.s.Mechanism, c.name)
			}
			if tc.s.Mechanism == Laplace {
				each := math.Exp(math.Log(0.95) / c.k)
				want := float64(tc.s.Sensitivity) * math.Log(1/(1-each)) / (float64(tc.target) + 0.5)
				if math.Abs(c.spec.EpsIn/want-1) > 0.01 {
					t.Errorf("laplace %s: ε %v, closed form %v", c.name, c.spec.EpsIn, want)
				}
			}
		}
		if v := rp.All.EpsIn; strconv.FormatFloat(v, 'g', -1, 64) != strconv.FormatFloat(v, 'g', 3, 64) {
			t.Errorf("ε %v has more than three significant figures", v)
		}
		if !strings.Contains(rp.Sentence(), "±"+human.Thousands(tc.target)) {
			t.Errorf("sentence %q", rp.Sentence())
		}
	}
	if _, err := PlanFor(Spec{Mechanism: Laplace, EpsIn: 1, EpsOut: 1, Sensitivity: 1}, 0, 0.95, 3); err == nil {
		t.Error("0 cells: no error")
	}
}

// BenchmarkPlanRelease measures a central release's plan over 40,000
// cells: a bisection of about forty closed-form bounds a figure.
func BenchmarkPlanRelease(b *testing.B) {
	for _, s := range benchSpecs {
		b.Run(s.Mechanism, func(b *testing.B) {
			for b.Loop() {
				if _, err := PlanFor(s, 40000, 0.95, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
