package central

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// LaplaceMixture is PM's Laplace piecewise mixture (PM Def. 3, eq. 11–13):
// scale λ₁ within the break-point c, λ₂ beyond it, continuous at c. With
// e₁ = e^{−c/λ₁},
//
//	f(x) = a₁ e^{−|x|/λ₁}   |x| ≤ c
//	f(x) = a₂ e^{−|x|/λ₂}   |x| > c
//	a₁ = 1/(2[λ₁(1−e₁) + λ₂e₁]),  a₂ = a₁ e^{c/λ₂ − c/λ₁}.
//
// C = 0, or λ₁ = λ₂, is the Laplace distribution of scale λ₂; the
// mechanism adding it to a query of sensitivity Δ with λ = Δ/ε is ε-DP.
type LaplaceMixture struct {
	Scale1, Scale2 float64 // λ₁ within the break-point, λ₂ beyond
	Break          float64 // c ≥ 0
}

// NewLaplaceNoise returns the Laplace noise of scale Δ/ε (PM eq. 4–5).
func NewLaplaceNoise(eps, sensitivity float64) (LaplaceMixture, error) {
	return NewLaplaceMixture(eps, eps, 0, sensitivity)
}

// NewLaplaceMixture returns the Laplace mixture with λ₁ = Δ/ε₁ within
// the break-point c and λ₂ = Δ/ε₂ beyond it.
func NewLaplaceMixture(eps1, eps2, c, sensitivity float64) (LaplaceMixture, error) {
	if err := checkRelease(eps1, eps2, c, sensitivity); err != nil {
		return LaplaceMixture{}, err
	}
	return LaplaceMixture{Scale1: sensitivity / eps1, Scale2: sensitivity / eps2, Break: c}, nil
}

// MinReleaseEpsilon and MaxReleaseEpsilon bound the ε/Δ a release
// takes. Below the first, noise of scale Δ/ε > 10⁹ counts drowns every
// count. Above the second, α = e^{−ε/Δ} and the noise's far
// probabilities leave the normal floating-point numbers (e^{−708.4} is
// the smallest): the noise rounds to none and its privacy loss can no
// longer be computed.
const (
	MinReleaseEpsilon = 1e-9
	MaxReleaseEpsilon = 700
)

// checkEpsilon rejects privacy levels that are not positive and finite
// (NaN, ±Inf, ≤ 0), in the manner of dp's checks.CheckEpsilonStrict, and
// those below MinReleaseEpsilon, in the words of core's check of a
// mechanism's ε (this package does not import core).
func checkEpsilon(eps float64) error {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return fmt.Errorf("core: epsilon must be positive and finite, got %v", eps)
	}
	if eps < MinReleaseEpsilon {
		return fmt.Errorf("core: epsilon %v is below %v, the smallest privacy level whose channel floating point resolves", eps, MinReleaseEpsilon)
	}
	return nil
}

// checkRelease validates a release's parameters.
func checkRelease(eps1, eps2, c, sensitivity float64) error {
	for _, e := range []float64{eps1, eps2} {
		if err := checkEpsilon(e); err != nil {
			return err
		}
	}
	if !(sensitivity > 0) || math.IsInf(sensitivity, 0) {
		return fmt.Errorf("core: sensitivity must be positive and finite, got %v", sensitivity)
	}
	for _, e := range []float64{eps1, eps2} {
		if e/sensitivity < MinReleaseEpsilon {
			return fmt.Errorf("core: ε/Δ = %v is below %v: noise of scale Δ/ε > %v counts drowns every count (and α = e^{−ε/Δ} is 1 in floating point below about 1e−16)", e/sensitivity, MinReleaseEpsilon, 1/MinReleaseEpsilon)
		}
	}
	for _, e := range []float64{eps1, eps2} {
		if e/sensitivity > MaxReleaseEpsilon {
			return fmt.Errorf("core: ε/Δ = %v is above %v: α = e^{−ε/Δ} and the noise's probabilities fall below the smallest normal floating-point number, so the noise vanishes and its privacy loss cannot be computed", e/sensitivity, MaxReleaseEpsilon)
		}
	}
	if !(c >= 0) || math.IsInf(c, 0) {
		return fmt.Errorf("core: break-point must be ≥ 0 and finite, got %v", c)
	}
	if c > MaxBreak {
		return fmt.Errorf("core: break-point %v is more than %d: the privacy loss is summed over the counts within it", c, MaxBreak)
	}
	if reach := c * eps1 / sensitivity; reach > MaxReleaseEpsilon {
		return fmt.Errorf("core: break-point %v is more than %v·Δ/ε₁ = %.6g: the noise's mass beyond it, e^{−c·ε₁/Δ}, is below the smallest normal floating-point number, so the mixture cannot be computed (and is the noise within the break-point alone)", c, MaxReleaseEpsilon, MaxReleaseEpsilon*sensitivity/eps1)
	}
	return nil
}

// coefficients returns a₁, a₂ and e₁ = e^{−c/λ₁}.
func (m LaplaceMixture) coefficients() (a1, a2, e1 float64) {
	e1 = math.Exp(-m.Break / m.Scale1)
	a1 = 1 / (2 * (m.Scale1*(1-e1) + m.Scale2*e1))
	a2 = a1 * math.Exp(m.Break/m.Scale2-m.Break/m.Scale1)
	return a1, a2, e1
}

// PDF returns f(x).
func (m LaplaceMixture) PDF(x float64) float64 {
	a1, a2, _ := m.coefficients()
	if ax := math.Abs(x); ax <= m.Break {
		return a1 * math.Exp(-ax/m.Scale1)
	}
	return a2 * math.Exp(-math.Abs(x)/m.Scale2)
}

// tail returns P(X > x) for x ≥ 0 (PM eq. 13):
//
//	x ≥ c:  a₁λ₂e₁ e^{−(x−c)/λ₂}
//	x < c:  a₁λ₁(e^{−x/λ₁} − e₁) + a₁λ₂e₁.
func (m LaplaceMixture) tail(x float64) float64 {
	a1, _, e1 := m.coefficients()
	if x >= m.Break {
		return a1 * m.Scale2 * e1 * math.Exp(-(x-m.Break)/m.Scale2)
	}
	return a1*m.Scale1*(math.Exp(-x/m.Scale1)-e1) + a1*m.Scale2*e1
}

// CDF returns P(X ≤ x) (PM eq. 13).
func (m LaplaceMixture) CDF(x float64) float64 {
	if x < 0 {
		return m.tail(-x)
	}
	return 1 - m.tail(x)
}

// Quantile returns the x with CDF(x) = p, 0 < p < 1: the inverse CDF of
// PM Algorithm 1, solved piecewise in closed form.
func (m LaplaceMixture) Quantile(p float64) float64 {
	if !(p > 0 && p < 1) {
		panic("core: quantile of a probability outside (0, 1)")
	}
	if p < 0.5 {
		return -m.tailInverse(p)
	}
	return m.tailInverse(1 - p)
}

// tailInverse returns the x ≥ 0 with P(X > x) = t, 0 < t ≤ ½.
func (m LaplaceMixture) tailInverse(t float64) float64 {
	a1, _, e1 := m.coefficients()
	out := a1 * m.Scale2 * e1 // P(X > c)
	if t <= out {
		return m.Break - m.Scale2*math.Log(t/out)
	}
	return -m.Scale1 * math.Log((t-out)/(a1*m.Scale1)+e1)
}

// Rand draws a noise by inversion (PM Algorithm 1). Seeded math/rand is
// for previews only (see the comment at the top of this file).
func (m LaplaceMixture) Rand(rng *rand.Rand) float64 {
	for {
		if u := rng.Float64(); u > 0 {
			return m.Quantile(u)
		}
	}
}

// AbsMean returns E|X| (PM eq. 14):
//
//	E|X| = 2a₁λ₁²[1 − e₁(1 + c/λ₁)] + 2a₁e₁λ₂(c + λ₂).
func (m LaplaceMixture) AbsMean() float64 {
	a1, _, e1 := m.coefficients()
	l1, l2, c := m.Scale1, m.Scale2, m.Break
	return 2*a1*l1*l1*(1-e1*(1+c/l1)) + 2*a1*e1*l2*(c+l2)
}

// Variance returns E X² (PM eq. 15):
//
//	E X² = 2a₁λ₁³[2 − e₁(c²/λ₁² + 2c/λ₁ + 2)] + 2a₁e₁λ₂(c² + 2cλ₂ + 2λ₂²).
func (m LaplaceMixture) Variance() float64 {
	a1, _, e1 := m.coefficients()
	l1, l2, c := m.Scale1, m.Scale2, m.Break
	r := c / l1
	return 2*a1*l1*l1*l1*(2-e1*(r*r+2*r+2)) + 2*a1*e1*l2*(c*c+2*c*l2+2*l2*l2)
}

// Entropy returns the differential entropy h = −∫ f ln f in nats (PM eq.
// 16): with the inner mass M₁ = 2a₁λ₁(1−e₁) and the outer M₂ = 2a₁λ₂e₁,
//
//	h = −M₁ ln a₁ − M₂ ln a₂ + (E|X| restricted to |x| ≤ c)/λ₁ + (E|X| beyond c)/λ₂.
func (m LaplaceMixture) Entropy() float64 {
	a1, a2, e1 := m.coefficients()
	l1, l2, c := m.Scale1, m.Scale2, m.Break
	m1, m2 := 2*a1*l1*(1-e1), 2*a1*l2*e1
	in := 2 * a1 * l1 * l1 * (1 - e1*(1+c/l1)) // ∫_{|x|≤c} |x| f
	out := 2 * a1 * e1 * l2 * (c + l2)         // ∫_{|x|>c} |x| f
	return -m1*math.Log(a1) - m2*math.Log(a2) + in/l1 + out/l2
}

// WorstEpsilon returns the exact worst-case privacy loss of adding the
// noise to a query of sensitivity Δ: sup_y |ln f(y) − ln f(y−Δ)|. −ln f
// is piecewise linear in |y|, of slope 1/λ₁ within c and 1/λ₂ beyond, so
// the worst window of width Δ lies where the slope is steepest
// (worstLoss): Δ/λ₂ for PM's preferred mixtures (λ₂ ≤ λ₁), Δ/λ for the
// Laplace mechanism.
func (m LaplaceMixture) WorstEpsilon(sensitivity float64) float64 {
	return worstLoss(1/m.Scale1, 1/m.Scale2, m.Break, sensitivity)
}

// worstLoss returns the largest increase of a symmetric, piecewise linear
// −ln f of slopes in (within c) and out (beyond c) over a window of width
// d: the window far out gives d·out; one inside [0, c] gives d·in when it
// fits, else [0, d] gives c·in + (d−c)·out. A window straddling 0 gains
// less than [0, d], as −ln f grows with |y|.
func worstLoss(in, out, c, d float64) float64 {
	switch {
	case out >= in:
		return d * out
	case d <= c:
		return d * in
	}
	return c*in + (d-c)*out
}
