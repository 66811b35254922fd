package central

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/privmap/privmap/internal/linalg"
)

// The general privacy budget of PM §III-C (PM eq. 32–35), read as the
// expected absolute privacy loss between two neighbouring counts x and
// x + Δ: with o the released value and L(o) = ln P[M(x) = o]/P[M(x+Δ) = o],
//
//	ε_g = E_{o∼M(x)} |L(o)|,
//
// probabilities of integer outputs for the geometric noises and for
// Laplace noise rounded to the nearest integer (PM eq. 34–35), densities
// for unrounded Laplace noise. The count is taken far from 0, so that no
// released value is clipped (PM: "for x close to zero (33) and (35) are
// approximations"). ε_g ≤ the worst case, and for the geometric mechanism
// with Δ = 1 every output's loss is ε, so ε_g = ε.
//
// PM Table I's values are not this mean but ln E e^{|L|}, the logarithm
// of the expected likelihood ratio (its c = 6, ε₁ = 0.25, ε₂ = 2.5 row
// gives 0.545 for the geometric mixture, where E|L| = 0.341 and
// ln E e^{|L|} = 0.5448); both equal ε for the geometric mechanism.
// The PM methods return that reading, to set privmap's figures beside the
// paper's (docs/EXPERIMENTS.md).

// lossSums accumulates a budget: Σ P·|L| and Σ P·e^{|L|}.
type lossSums struct{ abs, exp float64 }

func (s *lossSums) add(p, loss float64) {
	s.abs += p * loss
	s.exp += p * math.Exp(loss)
}

// Budget returns ε_g = E|L| of the noise added to a count of integer
// sensitivity Δ.
func (m GeometricMixture) Budget(sensitivity int) float64 { return m.budgets(sensitivity).abs }

// BudgetPM returns PM Table I's reading, ln E e^{|L|}.
func (m GeometricMixture) BudgetPM(sensitivity int) float64 {
	return math.Log(m.budgets(sensitivity).exp)
}

// budgets sums the loss over the noise k. With −ln P(k) = ℓ(k), the loss
// is |ℓ(k−Δ) − ℓ(k)|; beyond the break-point on both sides it is
// Δ·ln(1/α₂), so the sum runs over k = −c…c+Δ and the two tails are
// added in closed form.
func (m GeometricMixture) budgets(sensitivity int) lossSums {
	b1, b2 := m.coefficients()
	l1, l2 := -math.Log(m.Alpha1), -math.Log(m.Alpha2)
	c, d := m.Break, sensitivity
	logP := func(k int) float64 {
		if ak := abs(k); ak <= c {
			return math.Log(b1) - float64(ak)*l1
		}
		return math.Log(b2) - float64(abs(k))*l2
	}
	var s lossSums
	for k := -c; k <= c+d; k++ {
		s.add(math.Exp(logP(k)), math.Abs(logP(k)-logP(k-d)))
	}
	s.add(m.tail(c+d)+m.tail(c), float64(d)*l2)
	return s
}

// WorstEpsilon returns the exact worst-case privacy loss of the noise
// rounded to the nearest integer and added to a count of integer
// sensitivity Δ: sup_j |ln q(j)/q(j−Δ)| with q(j) = P(j−½ < X ≤ j+½).
// Rounding is post-processing, so it is at most the unrounded
// LaplaceMixture.WorstEpsilon.
func (r Rounded) WorstEpsilon(sensitivity int) float64 {
	worst := float64(sensitivity) / r.Scale2 // both bins beyond the break-point
	r.terms(sensitivity, func(_, loss float64) { worst = math.Max(worst, loss) })
	return worst
}

// Budget returns ε_g = E|L| of the noise rounded to the nearest integer
// and added to a count of integer sensitivity Δ (PM eq. 34 for the
// Laplace mechanism, 35 for the mixture).
func (r Rounded) Budget(sensitivity int) float64 {
	return r.budgets(sensitivity).abs
}

// BudgetPM returns PM Table I's reading of Budget, ln E e^{|L|}.
func (r Rounded) BudgetPM(sensitivity int) float64 {
	return math.Log(r.budgets(sensitivity).exp)
}

func (r Rounded) budgets(sensitivity int) lossSums {
	var s lossSums
	lo, hi := r.terms(sensitivity, s.add)
	// Outside the terms both bins lie beyond the break-point, where the
	// loss is Δ/λ₂: the mass of the bins j > hi and j < lo.
	s.add(r.tail(float64(hi)+0.5)+r.tail(-float64(lo)+0.5), float64(sensitivity)/r.Scale2)
	return s
}

// terms calls term with q(j) and |ln q(j)/q(j−Δ)| for the rounded
// outputs j whose bins, or the bins Δ below, reach into [−c, c], and
// returns the range of j it covered.
func (r Rounded) terms(sensitivity int, term func(q, loss float64)) (lo, hi int) {
	lo = int(math.Floor(-r.Break - 0.5))
	hi = int(math.Ceil(r.Break+0.5)) + sensitivity
	for j := lo; j <= hi; j++ {
		q, qd := r.PMF(j), r.PMF(j-sensitivity)
		term(q, math.Abs(linalg.Log(q)-linalg.Log(qd)))
	}
	return lo, hi
}

// Budget returns ε_g = E|L| of the unrounded noise added to a query of
// sensitivity Δ, L(y) = ln f(y)/f(y−Δ).
func (m LaplaceMixture) Budget(sensitivity float64) float64 { return m.budgets(sensitivity).abs }

// budgets integrates the loss. It is constant, Δ/λ₂, where y and y−Δ
// lie beyond the break-point on one side; on [−c, c+Δ] it is linear
// between the break-points of f(y) and f(y−Δ) and the places where it
// changes sign, and f is an exponential, so each piece is integrated by
// 20-point Gauss–Legendre quadrature (exact to rounding for these smooth
// integrands).
func (m LaplaceMixture) budgets(sensitivity float64) lossSums {
	c, d := m.Break, sensitivity
	g := func(y float64) float64 { return -math.Log(m.PDF(y)) }
	loss := func(y float64) float64 { return g(y-d) - g(y) }
	var pts []float64
	for _, k := range []float64{-c, 0, c, d - c, d, d + c} {
		if k >= -c && k <= c+d {
			pts = append(pts, k)
		}
	}
	slices.Sort(pts)
	var s lossSums
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		if b <= a {
			continue
		}
		// The loss is linear on [a, b]: split it where it crosses 0.
		pieces := [][2]float64{{a, b}}
		if la, lb := loss(a), loss(b); la*lb < 0 {
			r := a + (b-a)*la/(la-lb)
			pieces = [][2]float64{{a, r}, {r, b}}
		}
		for _, pc := range pieces {
			s.abs += quad.Fixed(func(y float64) float64 { return m.PDF(y) * math.Abs(loss(y)) }, pc[0], pc[1], 20, quad.Legendre{}, 0)
			s.exp += quad.Fixed(func(y float64) float64 { return m.PDF(y) * math.Exp(math.Abs(loss(y))) }, pc[0], pc[1], 20, quad.Legendre{}, 0)
		}
	}
	s.add(m.tail(c+d)+m.tail(c), d/m.Scale2)
	return s
}
