package release

import (
	"fmt"
	"math"
	"strconv"

	"github.com/privmap/privmap/app/human"
)

// A Plan is the privacy level a central release of Cells counts
// needs for its counts to lie within ±Target of the true ones with
// probability Level: each count alone (Each) and all of them at once
// (All), the spec's ε within and beyond its break-point scaled together
// (Spec.Interval's closed forms, exact for independent noises).
type Plan struct {
	Spec      Spec
	Cells     int
	Level     float64
	Target    int
	Each, All Spec
}

// PlanFor returns the smallest scaling of s's ε, to three
// significant figures rounded up, whose bounds at level over cells
// counts are at most target: the error bound falls as ε grows, so a
// bisection on the factor's logarithm finds it.
func PlanFor(s Spec, cells int, level float64, target int) (Plan, error) {
	if _, err := s.Interval(cells, level); err != nil {
		return Plan{}, err
	}
	if target < 0 || target > math.MaxInt32 {
		return Plan{}, fmt.Errorf("target ±%d: want a whole number of counts from 0", target)
	}
	rp := Plan{Spec: s, Cells: cells, Level: level, Target: target}
	var err error
	if rp.Each, err = scaleToBound(s, target, func(iv Interval) int { return iv.Each }, cells, level); err != nil {
		return rp, err
	}
	rp.All, err = scaleToBound(s, target, func(iv Interval) int { return iv.All }, cells, level)
	return rp, err
}

// scaleToBound returns s with ε scaled by the smallest factor (to three
// significant figures, up) at which bound(interval) ≤ target.
func scaleToBound(s Spec, target int, bound func(Interval) int, cells int, level float64) (Spec, error) {
	check := func(c Spec) (Spec, bool) {
		iv, err := c.Interval(cells, level)
		return c, err == nil && bound(iv) <= target
	}
	at := func(f float64) (Spec, bool) {
		c := s
		c.EpsIn, c.EpsOut = s.EpsIn*f, s.EpsOut*f
		return check(c)
	}
	lo, hi := 1.0, 1.0
	for _, ok := at(hi); !ok; _, ok = at(hi) {
		if hi *= 2; hi > 1e12 {
			return s, fmt.Errorf("no ε up to %.3g × the given one keeps the counts within ±%d at %s", 1e12, target, human.Percent(level))
		}
	}
	for _, ok := at(lo); ok; _, ok = at(lo) {
		if lo /= 2; lo < 1e-12 {
			c, _ := at(lo)
			return c, nil
		}
	}
	for hi/lo > 1+1e-10 {
		mid := math.Sqrt(lo * hi)
		if _, ok := at(mid); ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	// Each ε to three significant figures, rounded up: the bound is
	// still within the target, and the ε printed is the one checked.
	c, _ := at(hi)
	if r, ok := check(Spec{Mechanism: s.Mechanism, EpsIn: human.RoundUp(c.EpsIn, 3), EpsOut: human.RoundUp(c.EpsOut, 3), Break: s.Break, Sensitivity: s.Sensitivity}); ok {
		return r, nil
	}
	return c, nil
}

// Sentence says the plan in words, with ε's units.
func (rp Plan) Sentence() string {
	eps := func(s Spec) string {
		if s.Mixture() {
			return fmt.Sprintf("ε %s within the break-point and %s beyond it", sig3(s.EpsIn), sig3(s.EpsOut))
		}
		return "ε " + sig3(s.EpsIn)
	}
	return fmt.Sprintf("For every one of the %s released counts to lie within ±%s of its true count with probability %s, the %s release needs %s (ε per person, whose data change a count by at most Δ = %d); for each count alone, %s.",
		human.Thousands(rp.Cells), human.Thousands(rp.Target), human.Percent(rp.Level), rp.Spec.Mechanism, eps(rp.All), rp.Spec.Sensitivity, eps(rp.Each))
}

// sig3 writes v to three significant figures (a planned ε is rounded
// up to them already, roundUp).
func sig3(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
