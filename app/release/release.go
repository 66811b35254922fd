package release

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/privmap/privmap/app/human"
	"github.com/privmap/privmap/app/pipeline"
	"github.com/privmap/privmap/core/central"
)

// Central release mechanisms, as privmap release's -mechanism names them
// (docs/COMMANDS.md).
const (
	Laplace     = "laplace"
	Geometric   = "geometric"
	PMLaplace   = "pm-laplace"
	PMGeometric = "pm-geometric"
)

// Mechanisms lists them.
var Mechanisms = []string{Laplace, Geometric, PMLaplace, PMGeometric}

// MaxSensitivity bounds a release's sensitivity: the budget sums over
// the outputs within the break-point plus Δ.
const MaxSensitivity = 1_000_000

// A Spec is the noise of a central release of counts: the
// mechanism, its privacy levels within and beyond the break-point (the
// same ε for the standard mechanisms), the break-point and the
// sensitivity Δ, a whole number (counts). The scales are λ = Δ/ε
// (Laplace) and α = e^{−ε/Δ} (geometric).
type Spec struct {
	Mechanism     string
	EpsIn, EpsOut float64
	Break         float64
	Sensitivity   int
}

// Mixture reports whether the mechanism is a piecewise mixture.
func (s Spec) Mixture() bool { return s.Mechanism == PMLaplace || s.Mechanism == PMGeometric }

// Discrete reports whether the mechanism draws integer noise (geometric).
func (s Spec) Discrete() bool { return s.Mechanism == Geometric || s.Mechanism == PMGeometric }

// Validate checks the spec.
func (s Spec) Validate() error {
	switch s.Mechanism {
	case Laplace, Geometric, PMLaplace, PMGeometric:
	default:
		return fmt.Errorf("release mechanism %q: want laplace, geometric, pm-laplace or pm-geometric", s.Mechanism)
	}
	if s.Sensitivity < 1 || s.Sensitivity > MaxSensitivity {
		return fmt.Errorf("sensitivity %d: want a whole number from 1 to %d (counts change by whole numbers)", s.Sensitivity, MaxSensitivity)
	}
	if s.Discrete() && (s.Break != math.Trunc(s.Break) || s.Break > central.MaxBreak) {
		return fmt.Errorf("break-point %v: a geometric mixture's is a whole number from 0 to %d", s.Break, central.MaxBreak)
	}
	if !s.Mixture() && s.Break < 0 {
		return fmt.Errorf("break-point %v: want ≥ 0", s.Break)
	}
	_, err := s.noise()
	return err
}

// noise returns the spec's noise, unvalidated.
func (s Spec) noise() (Noise, error) {
	d := float64(s.Sensitivity)
	c := s.Break
	if !s.Mixture() {
		c = 0
	}
	if s.Discrete() {
		return central.NewGeometricMixture(s.EpsIn, s.EpsOut, int(c), d)
	}
	m, err := central.NewLaplaceMixture(s.EpsIn, s.EpsOut, c, d)
	return central.Rounded{LaplaceMixture: m}, err
}

// A Summary is what a release's noise costs and gives (PM §III):
// the exact worst-case ε, the general privacy budget (E|L|, and PM Table
// I's ln E e^{|L|}), and the noise's E|noise|, variance and entropy (nats;
// differential entropy for Laplace noise). Laplace noise is released
// rounded to the nearest integer, and its worst case and budget are the
// rounded release's (PM eq. 34–35).
type Summary struct {
	WorstEps, Budget, BudgetPM float64
	AbsMean, Variance, Entropy float64
	// Person, set by PersonSummary, is one person's loss over every way
	// her Δ records fall among the released cells; WorstEps, Budget and
	// BudgetPM are then hers, not one count's.
	Person *central.PersonLoss
}

// Summary returns the spec's summary.
func (s Spec) Summary() (Summary, error) {
	n, err := s.noise()
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{WorstEps: n.WorstEpsilon(s.Sensitivity), Budget: n.Budget(s.Sensitivity), BudgetPM: n.BudgetPM(s.Sensitivity),
		AbsMean: n.AbsMean(), Variance: n.Variance(), Entropy: n.Entropy()}
	return sum, sum.check()
}

// PersonSummary returns the summary of a release of cells counts for one
// person who adds or removes up to Δ records, which may fall in any of
// the cells (central.PersonLoss, package app/release's doc): WorstEps is
// the exact worst case over every split of her records, Budget and
// BudgetPM the largest average loss over them (or the worst case, an
// upper bound, when the splits are too many: Person.BudgetExact false).
// A geometric release's worst case is Σ_i W(d_i) with W(d) =
// (min(d, c)·ε_in + (d−c)⁺·ε_out)/Δ, or d·ε_out/Δ, so it is computed
// from the ε as given, exactly, and rounded once (1, not
// 0.9999999999999999).
func (s Spec) PersonSummary(cells int) (Summary, error) {
	if cells < 1 {
		return Summary{}, fmt.Errorf("a release of %d cells: want at least 1", cells)
	}
	sum, err := s.Summary()
	if err != nil {
		return sum, err
	}
	n, _ := s.noise()
	p := n.PersonLoss(s.Sensitivity, cells)
	if s.Discrete() {
		p.Worst, p.OneCell = s.exactWorst(p.WorstSplit), s.exactWorst([]int{s.Sensitivity})
		if !p.BudgetExact {
			p.Budget, p.BudgetPM = p.Worst, p.Worst
		}
	}
	sum.WorstEps, sum.Budget, sum.BudgetPM, sum.Person = p.Worst, p.Budget, p.BudgetPM, &p
	return sum, sum.check()
}

// exactWorst returns Σ_i W(d_i) of a geometric release over split in
// rational arithmetic from the ε's shortest decimal forms, rounded once:
// W(d) = (min(d, c)·ε_in + (d−c)⁺·ε_out)/Δ when ε_in > ε_out (c = 0 for
// the geometric mechanism), else d·ε_out/Δ (PM Def. 4; central's
// GeometricMixture.WorstEpsilon).
func (s Spec) exactWorst(split []int) float64 {
	c := 0
	if s.Mixture() {
		c = int(s.Break)
	}
	var in, out int64
	for _, d := range split {
		if s.EpsIn > s.EpsOut {
			in += int64(min(d, c))
			out += int64(max(d-c, 0))
		} else {
			out += int64(d)
		}
	}
	rat := func(v float64) *big.Rat {
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
		return r
	}
	w := new(big.Rat).Mul(rat(s.EpsIn), new(big.Rat).SetInt64(in))
	w.Add(w, new(big.Rat).Mul(rat(s.EpsOut), new(big.Rat).SetInt64(out)))
	w.Quo(w, new(big.Rat).SetInt64(int64(s.Sensitivity)))
	f, _ := w.Float64()
	return f
}

// check refuses a summary whose closed forms overflowed or cancelled at
// extreme parameters (a number that is not finite), naming them: a
// privacy officer never reads an ∞ or NaN that the noise does not have.
func (s Summary) check() error {
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
func (s Spec) Matching() (Spec, error) {
	return s.MatchingBy(func(b Summary) float64 { return b.Budget })
}

// MatchingBy is Matching with the budget read by budget (Budget, or PM's
// BudgetPM). A geometric mechanism's budget is its ε in both readings; a
// rounded Laplace mechanism's is below its ε (rounding is
// post-processing) and grows with it, so its ε is bracketed by doubling
// and found by bisection.
func (s Spec) MatchingBy(budget func(Summary) float64) (Spec, error) {
	sum, err := s.Summary()
	if err != nil {
		return Spec{}, err
	}
	target := budget(sum)
	std := Spec{Mechanism: Geometric, EpsIn: target, EpsOut: target, Sensitivity: s.Sensitivity}
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
			return Spec{}, err
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
			return Spec{}, err
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

// A Noise is the integer noise a release adds to one count: the
// geometric mixture's (PM eq. 25, central.GeometricMixture) or the
// Laplace mixture's rounded to the nearest integer (PM eq. 34,
// central.Rounded), the standard mechanisms being mixtures with one
// scale. Both answer these questions under the same names; this package,
// their user, declares the ones it asks.
type Noise interface {
	// PMF returns P(noise = k); CDF returns P(noise ≤ k).
	PMF(k int) float64
	CDF(k int) float64
	// Quantile returns the smallest k with P(noise ≤ k) ≥ p, 0 < p < 1.
	Quantile(p float64) int
	// Rand draws the noise for a preview, from seeded math/rand.
	Rand(rng *rand.Rand) int
	// WorstEpsilon, Budget and BudgetPM are the release's worst-case ε
	// and general privacy budget (E|L|, and PM Table I's ln E e^{|L|})
	// for a count of integer sensitivity Δ (PM §III).
	WorstEpsilon(sensitivity int) float64
	Budget(sensitivity int) float64
	BudgetPM(sensitivity int) float64
	// PersonLoss is the loss of one person's records among cells counts.
	PersonLoss(records, cells int) central.PersonLoss
	// AbsMean, Variance and Entropy describe the noise (the unrounded
	// Laplace noise's, for a Laplace release).
	AbsMean() float64
	Variance() float64
	Entropy() float64
}

// Noise returns the spec's noise.
func (s Spec) Noise() (Noise, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s.noise()
}

// Span returns the smallest K ≥ 0 with P(|noise| ≤ K) ≥ p, 0 < p < 1, of
// a symmetric noise: the (1+p)/2 quantile.
func Span(n Noise, p float64) int {
	return max(n.Quantile((1+p)/2), 0)
}

// Counts adds the spec's noise to every count: seeded math/rand
// draws for a preview (Laplace noise rounded to the nearest integer), or,
// with secure, exact integer noise from crypto/rand (geometric mechanisms
// only: floating-point Laplace noise leaks the count it is added to,
// Mironov 2012). ctx cancels between cells.
func Counts(ctx context.Context, counts []float64, s Spec, seed uint64, secure bool) ([]float64, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	out := make([]float64, len(counts))
	if secure {
		return out, drawSecure(ctx, counts, s, out)
	}
	n, _ := s.noise()
	rng := pipeline.NewRand(seed)
	for i, z := range counts {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = z + float64(n.Rand(rng))
	}
	return out, nil
}

// ErrPreviewOnly says a Laplace mechanism cannot make a release for
// publication.
var ErrPreviewOnly = errors.New("the Laplace mechanisms are preview-only: floating-point Laplace noise leaks the count it is added to (Mironov 2012); publish with geometric or pm-geometric, whose integer noise is drawn exactly")

// drawSecure draws exact geometric noise from crypto/rand, its
// parameters read exactly from their shortest decimal forms.
func drawSecure(ctx context.Context, counts []float64, s Spec, out []float64) error {
	if !s.Discrete() {
		return ErrPreviewOnly
	}
	text := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	c := 0
	if s.Mixture() {
		c = int(s.Break)
	}
	m, err := central.NewSecureGeometricMixture(text(s.EpsIn), text(s.EpsOut), c, strconv.Itoa(s.Sensitivity))
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

// Suppress sets to 0 the released counts at most t (t > 0), raw as they
// are drawn, and returns how many it set: post-processing of the noisy
// counts, which costs no privacy, for a publication that must not show
// tiny counts.
func Suppress(raw []float64, t float64) int {
	if t <= 0 {
		return 0
	}
	n := 0
	for i, v := range raw {
		if v <= t && v != 0 {
			raw[i] = 0
			n++
		}
	}
	return n
}

// An Interval bounds a release's error at a level: each released
// count lies within ±Each of its true count with probability Level, and
// all of the Cells counts at once within ±All with probability Level.
// Both are exact for the independent integer noises of a release
// (PM §III): P(|noise| ≤ t) from the noise's CDF, and, the cells' noises
// being independent, P(max |noise| ≤ t) = P(|noise| ≤ t)^Cells. A count
// published clipped at 0 is no farther from its (non-negative) true
// count than the raw one, so the bounds hold for published counts too.
type Interval struct {
	Level     float64
	Cells     int
	Each, All int
}

// Interval returns the spec's error bounds over cells counts
// at level, 0 < level < 1.
func (s Spec) Interval(cells int, level float64) (Interval, error) {
	if !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("interval level %v: want a probability strictly between 0 and 1, such as 0.95", level)
	}
	if cells < 1 {
		return Interval{}, fmt.Errorf("interval over %d cells: want at least 1", cells)
	}
	n, err := s.Noise()
	if err != nil {
		return Interval{}, err
	}
	// P(|noise| ≤ t)^cells ≥ level ⇔ P(|noise| ≤ t) ≥ level^(1/cells),
	// its (cells)th root.
	each := math.Exp(math.Log(level) / float64(cells))
	return Interval{Level: level, Cells: cells, Each: Span(n, level), All: Span(n, each)}, nil
}

// Bounds are each true count's interval (Lo, Hi) and the band
// holding every one at once (BandLo, BandHi), from a release's raw counts.
type Bounds struct {
	Lo, Hi, BandLo, BandHi []float64
}

// Bounds returns the intervals of the true counts given the raw
// released counts (before clipping and suppression): a true count lies
// within ±Each of its raw count alone and within ±All for every cell at
// once; a count suppressed to 0 (suppressed[x], released at most t)
// within t more of 0; true counts are ≥ 0. suppressed may be nil.
func (iv Interval) Bounds(raw []float64, suppressed []bool, t float64) Bounds {
	k := len(raw)
	b := Bounds{Lo: make([]float64, k), Hi: make([]float64, k), BandLo: make([]float64, k), BandHi: make([]float64, k)}
	each, all := float64(iv.Each), float64(iv.All)
	for x, v := range raw {
		if suppressed != nil && suppressed[x] {
			b.Hi[x], b.BandHi[x] = t+each, t+all
			continue
		}
		b.Lo[x], b.Hi[x] = math.Max(v-each, 0), v+each
		b.BandLo[x], b.BandHi[x] = math.Max(v-all, 0), v+all
	}
	return b
}

// Suppressible returns which raw counts Suppress(raw, t) sets to 0.
func Suppressible(raw []float64, t float64) []bool {
	out := make([]bool, len(raw))
	for x, v := range raw {
		out[x] = t > 0 && v <= t && v != 0
	}
	return out
}

// Sentence says the bounds in words, as DP Creator does: "With
// probability 95%, every released count is within ±17 of its true count;
// each one alone is within ±6." It holds for a release neither clipped
// nor suppressed; Statement says what one that is holds.
func (iv Interval) Sentence() string { return iv.Statement(Accuracy{}) }

// An Accuracy is what, besides the noise, sets how far a released count
// is from the count it stands for: counts suppressed to 0 at a threshold,
// and each person's records clipped to Δ before the noise.
type Accuracy struct {
	// Suppressed counts the released counts set to 0, of at most
	// Threshold.
	Suppressed int
	Threshold  float64
	// Dropped counts the records clipping dropped (Sensitivity the Δ
	// kept of each person); in a preview, DroppedCells and MostDropped
	// say in how many cells and at most how many from one (0 when not
	// said: a publication does not tell where records were dropped).
	Dropped, Sensitivity      int
	DroppedCells, MostDropped int
}

// Statement says the bounds in words as they hold: of the count after
// clipping when records were dropped (a true count is higher by the
// records dropped from its cell, which the noise does not bound), and
// with the suppressed counts, released as 0 from a raw count of at most
// T, within T more (Interval.Bounds).
func (iv Interval) Statement(a Accuracy) string {
	p := strconv.FormatFloat(100*iv.Level, 'f', -1, 64)
	of := "its true count"
	if a.Dropped > 0 {
		of = "its count after clipping"
	}
	s := fmt.Sprintf("With probability %s%%, every one of the %s released counts is within ±%s of %s", p, human.Thousands(iv.Cells), human.Thousands(iv.All), of)
	alone := fmt.Sprintf("each one alone is within ±%s", human.Thousands(iv.Each))
	if a.Suppressed > 0 {
		t := int(math.Floor(a.Threshold))
		s += fmt.Sprintf(", but the %s set to 0 by suppression (their noisy counts were at most %s) are within +%s",
			human.Plural(a.Suppressed, "count", "counts"), human.Thousands(t), human.Thousands(t+iv.All))
		alone += fmt.Sprintf(" (a suppressed one within +%s)", human.Thousands(t+iv.Each))
	}
	s += "; " + alone + "."
	if a.Dropped > 0 {
		s += fmt.Sprintf(" Clipping kept at most %s of each person and dropped %s: a true count is higher than its clipped one by the records dropped from its cell, which these bounds do not include",
			human.Plural(a.Sensitivity, "record", "records"), human.Plural(a.Dropped, "record", "records"))
		if a.DroppedCells > 0 {
			s += fmt.Sprintf(" (this preview dropped records in %s, at most %s from one)", human.Plural(a.DroppedCells, "cell", "cells"), human.Thousands(a.MostDropped))
		}
		s += "."
	}
	return s
}
