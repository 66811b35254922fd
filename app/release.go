package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/privmap/privmap/core"
)

// Central release mechanisms, as privmap release's -mechanism names them
// (docs/ARCHITECTURE.md §8).
const (
	Laplace     = "laplace"
	Geometric   = "geometric"
	PMLaplace   = "pm-laplace"
	PMGeometric = "pm-geometric"
)

// ReleaseMechanisms lists them.
var ReleaseMechanisms = []string{Laplace, Geometric, PMLaplace, PMGeometric}

// MaxSensitivity bounds a release's sensitivity: the budget sums over
// the outputs within the break-point plus Δ.
const MaxSensitivity = 1_000_000

// A ReleaseSpec is the noise of a central release of counts: the
// mechanism, its privacy levels within and beyond the break-point (the
// same ε for the standard mechanisms), the break-point and the
// sensitivity Δ, a whole number (counts). The scales are λ = Δ/ε
// (Laplace) and α = e^{−ε/Δ} (geometric).
type ReleaseSpec struct {
	Mechanism     string
	EpsIn, EpsOut float64
	Break         float64
	Sensitivity   int
}

// Mixture reports whether the mechanism is a piecewise mixture.
func (s ReleaseSpec) Mixture() bool { return s.Mechanism == PMLaplace || s.Mechanism == PMGeometric }

// Discrete reports whether the mechanism draws integer noise (geometric).
func (s ReleaseSpec) Discrete() bool { return s.Mechanism == Geometric || s.Mechanism == PMGeometric }

// Validate checks the spec.
func (s ReleaseSpec) Validate() error {
	switch s.Mechanism {
	case Laplace, Geometric, PMLaplace, PMGeometric:
	default:
		return fmt.Errorf("release mechanism %q: want laplace, geometric, pm-laplace or pm-geometric", s.Mechanism)
	}
	if s.Sensitivity < 1 || s.Sensitivity > MaxSensitivity {
		return fmt.Errorf("sensitivity %d: want a whole number from 1 to %d (counts change by whole numbers)", s.Sensitivity, MaxSensitivity)
	}
	if s.Discrete() && (s.Break != math.Trunc(s.Break) || s.Break > core.MaxBreak) {
		return fmt.Errorf("break-point %v: a geometric mixture's is a whole number from 0 to %d", s.Break, core.MaxBreak)
	}
	if !s.Mixture() && s.Break < 0 {
		return fmt.Errorf("break-point %v: want ≥ 0", s.Break)
	}
	_, err := s.noise()
	return err
}

// noise returns the spec's noise, unvalidated.
func (s ReleaseSpec) noise() (ReleaseNoise, error) {
	d := float64(s.Sensitivity)
	c := s.Break
	if !s.Mixture() {
		c = 0
	}
	if s.Discrete() {
		m, err := core.NewGeometricMixture(s.EpsIn, s.EpsOut, int(c), d)
		return ReleaseNoise{geo: &m}, err
	}
	m, err := core.NewLaplaceMixture(s.EpsIn, s.EpsOut, c, d)
	return ReleaseNoise{laplace: &m}, err
}

// A ReleaseSummary is what a release's noise costs and gives (PM §III):
// the exact worst-case ε, the general privacy budget (E|L|, and PM Table
// I's ln E e^{|L|}), and the noise's E|noise|, variance and entropy (nats;
// differential entropy for Laplace noise). Laplace noise is released
// rounded to the nearest integer, and its worst case and budget are the
// rounded release's (PM eq. 34–35).
type ReleaseSummary struct {
	WorstEps, Budget, BudgetPM float64
	AbsMean, Variance, Entropy float64
}

// Summary returns the spec's summary.
func (s ReleaseSpec) Summary() (ReleaseSummary, error) {
	n, err := s.noise()
	if err != nil {
		return ReleaseSummary{}, err
	}
	var sum ReleaseSummary
	if m := n.geo; m != nil {
		sum = ReleaseSummary{WorstEps: m.WorstEpsilon(s.Sensitivity), Budget: m.Budget(s.Sensitivity), BudgetPM: m.BudgetPM(s.Sensitivity),
			AbsMean: m.AbsMean(), Variance: m.Variance(), Entropy: m.Entropy()}
	} else {
		m := n.laplace
		sum = ReleaseSummary{WorstEps: m.WorstEpsilonRounded(s.Sensitivity), Budget: m.BudgetRounded(s.Sensitivity), BudgetPM: m.BudgetRoundedPM(s.Sensitivity),
			AbsMean: m.AbsMean(), Variance: m.Variance(), Entropy: m.Entropy()}
	}
	return sum, sum.check()
}

// check refuses a summary whose closed forms overflowed or cancelled at
// extreme parameters (a number that is not finite), naming them: a
// privacy officer never reads an ∞ or NaN that the noise does not have.
func (s ReleaseSummary) check() error {
	var bad []string
	for _, v := range []struct {
		name string
		x    float64
	}{{"worst-case ε", s.WorstEps}, {"budget", s.Budget}, {"PM budget", s.BudgetPM}, {"E|noise|", s.AbsMean}, {"variance", s.Variance}, {"entropy", s.Entropy}} {
		if math.IsInf(v.x, 0) || math.IsNaN(v.x) {
			bad = append(bad, fmt.Sprintf("%s %v", v.name, v.x))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the noise's closed forms leave floating point at these parameters (%s): bring ε within and beyond the break-point closer together, or the break-point nearer 0", strings.Join(bad, ", "))
	}
	return nil
}

// Matching returns the standard mechanism of the spec's family (Laplace
// or geometric) whose general privacy budget equals the spec's: the
// comparison PM Table I makes.
func (s ReleaseSpec) Matching() (ReleaseSpec, error) {
	return s.MatchingBy(func(b ReleaseSummary) float64 { return b.Budget })
}

// MatchingBy is Matching with the budget read by budget (Budget, or PM's
// BudgetPM). A geometric mechanism's budget is its ε in both readings; a
// rounded Laplace mechanism's is below its ε (rounding is
// post-processing) and grows with it, so its ε is bracketed by doubling
// and found by bisection.
func (s ReleaseSpec) MatchingBy(budget func(ReleaseSummary) float64) (ReleaseSpec, error) {
	sum, err := s.Summary()
	if err != nil {
		return ReleaseSpec{}, err
	}
	target := budget(sum)
	std := ReleaseSpec{Mechanism: Geometric, EpsIn: target, EpsOut: target, Sensitivity: s.Sensitivity}
	if s.Discrete() {
		return std, nil
	}
	std.Mechanism = Laplace
	at := func(eps float64) (float64, error) {
		std.EpsIn, std.EpsOut = eps, eps
		b, err := std.Summary()
		return budget(b), err
	}
	lo, hi := target, 2*target
	for i := 0; ; i++ {
		b, err := at(hi)
		if err != nil {
			return ReleaseSpec{}, err
		}
		if b >= target || i == 60 {
			break
		}
		lo, hi = hi, 2*hi
	}
	for range 60 {
		mid := (lo + hi) / 2
		b, err := at(mid)
		if err != nil {
			return ReleaseSpec{}, err
		}
		if b < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	std.EpsIn, std.EpsOut = (lo+hi)/2, (lo+hi)/2
	return std, nil
}

// A ReleaseNoise is the integer noise a release adds to one count: the
// geometric mixture's (PM eq. 25) or the Laplace mixture's rounded to the
// nearest integer (PM eq. 34), the standard mechanisms being mixtures
// with one scale.
type ReleaseNoise struct {
	geo     *core.GeometricMixture
	laplace *core.LaplaceMixture
}

// Noise returns the spec's noise.
func (s ReleaseSpec) Noise() (ReleaseNoise, error) {
	if err := s.Validate(); err != nil {
		return ReleaseNoise{}, err
	}
	return s.noise()
}

// PMF returns P(noise = k).
func (n ReleaseNoise) PMF(k int) float64 {
	if n.geo != nil {
		return n.geo.PMF(k)
	}
	return n.laplace.RoundedPMF(k)
}

// CDF returns P(noise ≤ k).
func (n ReleaseNoise) CDF(k int) float64 {
	if n.geo != nil {
		return n.geo.CDF(k)
	}
	return n.laplace.CDF(float64(k) + 0.5)
}

// Rand draws the noise for a preview: the Laplace noise rounded to the
// nearest integer.
func (n ReleaseNoise) Rand(rng *rand.Rand) float64 {
	if n.geo != nil {
		return float64(n.geo.Rand(rng))
	}
	return math.Round(n.laplace.Rand(rng))
}

// Span returns the smallest K ≥ 0 with P(|noise| ≤ K) ≥ p, 0 < p < 1:
// by symmetry the (1+p)/2 quantile, of the integer noise K itself, of
// the Laplace noise X less ½ (|round X| ≤ K when |X| < K + ½).
func (n ReleaseNoise) Span(p float64) int {
	q := (1 + p) / 2
	if n.geo != nil {
		return max(n.geo.Quantile(q), 0)
	}
	return max(int(math.Ceil(n.laplace.Quantile(q)-0.5)), 0)
}

// ReleaseCounts adds the spec's noise to every count: seeded math/rand
// draws for a preview (Laplace noise rounded to the nearest integer), or,
// with secure, exact integer noise from crypto/rand (geometric mechanisms
// only: floating-point Laplace noise leaks the count it is added to,
// Mironov 2012). ctx cancels between cells.
func ReleaseCounts(ctx context.Context, counts []float64, s ReleaseSpec, seed uint64, secure bool) ([]float64, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	out := make([]float64, len(counts))
	if secure {
		return out, releaseSecure(ctx, counts, s, out)
	}
	n, _ := s.noise()
	rng := NewRand(seed)
	for i, z := range counts {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = z + n.Rand(rng)
	}
	return out, nil
}

// ErrPreviewOnly says a Laplace mechanism cannot make a release for
// publication.
var ErrPreviewOnly = errors.New("the Laplace mechanisms are preview-only: floating-point Laplace noise leaks the count it is added to (Mironov 2012); publish with geometric or pm-geometric, whose integer noise is drawn exactly")

// releaseSecure draws exact geometric noise from crypto/rand, its
// parameters read exactly from their shortest decimal forms.
func releaseSecure(ctx context.Context, counts []float64, s ReleaseSpec, out []float64) error {
	if !s.Discrete() {
		return ErrPreviewOnly
	}
	text := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	c := 0
	if s.Mixture() {
		c = int(s.Break)
	}
	m, err := core.NewSecureGeometricMixture(text(s.EpsIn), text(s.EpsOut), c, strconv.Itoa(s.Sensitivity))
	if err != nil {
		return err
	}
	for i, z := range counts {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := m.Rand(ctx)
		if err != nil {
			return err
		}
		// z is a whole number below 2⁵³; the sum is exact while it stays
		// there.
		sum := new(big.Int).Add(big.NewInt(int64(z)), big.NewInt(k))
		if sum.BitLen() > 53 {
			return fmt.Errorf("cell %d: a released count beyond 2⁵³", i)
		}
		out[i] = float64(sum.Int64())
	}
	return nil
}
