package central

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// GeometricMixture is PM's geometric piecewise mixture (PM Def. 4, eq.
// 21–27) on the integers: parameter α₁ = e^{−ε₁/Δ} within the break-point
// c, α₂ = e^{−ε₂/Δ} beyond it,
//
//	P(k) = b₁ α₁^{|k|}   |k| ≤ c
//	P(k) = b₂ α₂^{|k|}   |k| > c,   b₂ = b₁ (α₁/α₂)^c,
//	1/b₁ = 1 + 2α₁(1 − α₁^c)/(1 − α₁) + 2α₁^c α₂/(1 − α₂).
//
// C = 0, or α₁ = α₂, is the two-sided geometric distribution
// P(k) = (1−α)/(1+α) α^{|k|} (PM eq. 7), whose mechanism is ε-DP.
type GeometricMixture struct {
	Alpha1, Alpha2 float64 // α₁ within the break-point, α₂ beyond
	Break          int     // c ≥ 0
}

// MaxBreak bounds a geometric mixture's break-point: the budget and the
// worst case sum over the c integers within it.
const MaxBreak = 10_000_000

// NewGeometricNoise returns the two-sided geometric noise with
// α = e^{−ε/Δ} (PM §II-B).
func NewGeometricNoise(eps, sensitivity float64) (GeometricMixture, error) {
	return NewGeometricMixture(eps, eps, 0, sensitivity)
}

// NewGeometricMixture returns the geometric mixture with α₁ = e^{−ε₁/Δ}
// within the break-point c and α₂ = e^{−ε₂/Δ} beyond it.
func NewGeometricMixture(eps1, eps2 float64, c int, sensitivity float64) (GeometricMixture, error) {
	if err := checkRelease(eps1, eps2, float64(c), sensitivity); err != nil {
		return GeometricMixture{}, err
	}
	if c > MaxBreak {
		return GeometricMixture{}, fmt.Errorf("core: break-point %d is more than %d", c, MaxBreak)
	}
	return GeometricMixture{Alpha1: math.Exp(-eps1 / sensitivity), Alpha2: math.Exp(-eps2 / sensitivity), Break: c}, nil
}

// coefficients returns b₁ and b₂.
func (m GeometricMixture) coefficients() (b1, b2 float64) {
	a1, a2, c := m.Alpha1, m.Alpha2, float64(m.Break)
	a1c := math.Pow(a1, c)
	b1 = 1 / (1 + 2*a1*(1-a1c)/(1-a1) + 2*a1c*a2/(1-a2))
	return b1, b1 * math.Pow(a1/a2, c)
}

// PMF returns P(K = k).
func (m GeometricMixture) PMF(k int) float64 {
	b1, b2 := m.coefficients()
	ak := abs(k)
	if ak <= m.Break {
		return b1 * math.Pow(m.Alpha1, float64(ak))
	}
	return b2 * math.Pow(m.Alpha2, float64(ak))
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}

// tail returns P(K > k) for k ≥ 0:
//
//	k ≥ c:  b₂ α₂^{k+1}/(1 − α₂)
//	k < c:  b₁(α₁^{k+1} − α₁^{c+1})/(1 − α₁) + b₂ α₂^{c+1}/(1 − α₂).
func (m GeometricMixture) tail(k int) float64 {
	b1, b2 := m.coefficients()
	a1, a2 := m.Alpha1, m.Alpha2
	out := b2 * math.Pow(a2, float64(k+1)) / (1 - a2)
	if k >= m.Break {
		return out
	}
	c := float64(m.Break)
	return b1*(math.Pow(a1, float64(k+1))-math.Pow(a1, c+1))/(1-a1) + b2*math.Pow(a2, c+1)/(1-a2)
}

// CDF returns P(K ≤ k) (PM eq. 27).
func (m GeometricMixture) CDF(k int) float64 {
	if k < 0 {
		return m.tail(-k - 1) // P(K ≤ k) = P(K ≥ −k) = P(K > −k−1)
	}
	return 1 - m.tail(k)
}

// Quantile returns the smallest k with CDF(k) ≥ p, 0 < p < 1: the
// inverse CDF of PM Algorithm 2, solved in logarithms on each piece and
// checked against the CDF.
func (m GeometricMixture) Quantile(p float64) int {
	if !(p > 0 && p < 1) {
		panic("core: quantile of a probability outside (0, 1)")
	}
	// P(K ≤ −j−1) = P(K > j) by symmetry.
	if p <= m.tail(0) {
		// The smallest k = −j−1 ≤ −1 with P(K > j) ≥ p: the largest j.
		return -m.tailAtLeast(p) - 1
	}
	// The smallest k ≥ 0 with P(K > k) ≤ 1 − p.
	return m.tailAtMost(1 - p)
}

// tailAtMost returns the smallest k ≥ 0 with P(K > k) ≤ t.
func (m GeometricMixture) tailAtMost(t float64) int {
	k := m.guess(t)
	for k > 0 && m.tail(k-1) <= t {
		k--
	}
	for m.tail(k) > t {
		k++
	}
	return k
}

// tailAtLeast returns the largest j ≥ 0 with P(K > j) ≥ t, t ≤ P(K > 0).
func (m GeometricMixture) tailAtLeast(t float64) int {
	j := m.guess(t)
	for j > 0 && m.tail(j) < t {
		j--
	}
	for m.tail(j+1) >= t {
		j++
	}
	return j
}

// guess returns about the k with P(K > k) = t, from the closed forms of
// the tail.
func (m GeometricMixture) guess(t float64) int {
	b1, b2 := m.coefficients()
	a1, a2, c := m.Alpha1, m.Alpha2, float64(m.Break)
	out := b2 * math.Pow(a2, c+1) / (1 - a2) // P(K > c)
	var k float64
	if t <= out {
		k = c + math.Log(t/out)/math.Log(a2)
	} else {
		// b₁(α₁^{k+1} − α₁^{c+1})/(1 − α₁) = t − out
		k = math.Log((t-out)*(1-a1)/b1+math.Pow(a1, c+1))/math.Log(a1) - 1
	}
	if !(k >= 0) {
		return 0
	}
	return int(math.Min(k, 1e15))
}

// Rand draws a noise by inversion (PM Algorithm 2). Seeded math/rand is
// for previews only (see central.go).
func (m GeometricMixture) Rand(rng *rand.Rand) int {
	for {
		if u := rng.Float64(); u > 0 {
			return m.Quantile(u)
		}
	}
}

// moments returns the sums Σ_{|k|≤c} |k|^j P(k) and Σ_{|k|>c} |k|^j P(k)
// for j = 1, 2, and the masses within and beyond c: the inner sums by
// adding the c terms (exact for any α₁ ≤ 1, where closed forms cancel
// catastrophically as α₁ → 1), the outer ones in closed form,
//
//	Σ_{k>c} k α^k  = α^c (S₁ + c S₀)
//	Σ_{k>c} k² α^k = α^c (S₂ + 2c S₁ + c² S₀),
//
// S₀ = α/(1−α), S₁ = α/(1−α)², S₂ = α(1+α)/(1−α)³.
func (m GeometricMixture) moments() (in1, in2, out1, out2, massIn, massOut float64) {
	b1, b2 := m.coefficients()
	a1, a2, c := m.Alpha1, m.Alpha2, float64(m.Break)
	massIn = b1
	p := b1
	for k := 1; k <= m.Break; k++ {
		p *= a1
		kf := float64(k)
		in1 += 2 * kf * p
		in2 += 2 * kf * kf * p
		massIn += 2 * p
	}
	s0, s1, s2 := a2/(1-a2), a2/((1-a2)*(1-a2)), a2*(1+a2)/((1-a2)*(1-a2)*(1-a2))
	ac := b2 * math.Pow(a2, c)
	out1 = 2 * ac * (s1 + c*s0)
	out2 = 2 * ac * (s2 + 2*c*s1 + c*c*s0)
	massOut = 2 * ac * s0
	return
}

// AbsMean returns E|K| (PM eq. 28).
func (m GeometricMixture) AbsMean() float64 {
	in1, _, out1, _, _, _ := m.moments()
	return in1 + out1
}

// Variance returns E K² (PM eq. 29).
func (m GeometricMixture) Variance() float64 {
	_, in2, _, out2, _, _ := m.moments()
	return in2 + out2
}

// Entropy returns H = −Σ P(k) ln P(k) in nats (PM eq. 30):
//
//	H = −M₁ ln b₁ − M₂ ln b₂ − ln α₁ Σ_{|k|≤c} |k|P(k) − ln α₂ Σ_{|k|>c} |k|P(k),
//
// M₁ and M₂ the masses within and beyond c.
func (m GeometricMixture) Entropy() float64 {
	b1, b2 := m.coefficients()
	in1, _, out1, _, m1, m2 := m.moments()
	return -m1*math.Log(b1) - m2*math.Log(b2) - math.Log(m.Alpha1)*in1 - math.Log(m.Alpha2)*out1
}

// WorstEpsilon returns the exact worst-case privacy loss of adding the
// noise to a count query of integer sensitivity Δ: sup_k |ln P(k)/P(k−Δ)|.
// −ln P grows by ln(1/α₁) a step within c and ln(1/α₂) a step beyond it
// (the step from c to c+1 too, as b₂α₂^{c+1} = b₁α₁^cα₂), so it is
// worstLoss with those slopes: ε₂ for the preferred mixtures (ε₂ ≥ ε₁),
// ε for the geometric mechanism, when Δ is the sensitivity it was made
// for.
func (m GeometricMixture) WorstEpsilon(sensitivity int) float64 {
	return worstLoss(-math.Log(m.Alpha1), -math.Log(m.Alpha2), float64(m.Break), float64(sensitivity))
}
