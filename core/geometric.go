package core

import (
	"context"
	"math"
	"math/rand/v2"
)

// KindGeo names the truncated linear geometric mechanism (FW eq. 2–3) in study files.
const KindGeo MechanismKind = "geometric"

// geometricKind is the truncated linear geometric mechanism (FW eq. 2–3), registered in kindRegistry.
var geometricKind = Kind{Name: KindGeo, Alphabets: []AlphabetKind{KindLinear}, Param: ParamEpsilon, GeoLevel: true,
	build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewGeometric(a.Len(), s.Epsilon)
		return m, err
	},
}

// Geometric is the truncated linear geometric mechanism (Ghosh et al.),
// FW eq. (2)–(3), on {0, …, K−1} with ε per unit step:
//
//	P(z | x) = c_z e^{−ε|z−x|},
//	c_z = 1/(1+e^{−ε})            at the ends z ∈ {0, K−1},
//	c_z = (1−e^{−ε})/(1+e^{−ε})   inside.
//
// It is the two-sided geometric mechanism with its output clamped to the
// alphabet, and satisfies ε-geo-indistinguishability per step:
// P(z|x) ≤ e^{ε|x−x'|} P(z|x').
type Geometric struct {
	K       int
	Epsilon float64
}

// Geometric's capabilities.
var (
	_ Channel = (*Geometric)(nil)
	_ Sampler = (*Geometric)(nil)
)

// NewGeometric returns the truncated geometric mechanism on K symbols.
func NewGeometric(k int, eps float64) (*Geometric, error) {
	if err := checkSize(k); err != nil {
		return nil, err
	}
	if err := checkEpsilon(eps); err != nil {
		return nil, err
	}
	return &Geometric{K: k, Epsilon: eps}, nil
}

// Inputs returns K.
func (m *Geometric) Inputs() int { return m.K }

// Outputs returns K.
func (m *Geometric) Outputs() int { return m.K }

// positiveOutputs marks every output of the geometric mechanism as
// possible under every input (see positiveChannel).
func (m *Geometric) positiveOutputs() {}

// Prob returns P(z | x) by FW eq. (2)–(3).
func (m *Geometric) Prob(x, z int) float64 {
	a := math.Exp(-m.Epsilon)
	c := (1 - a) / (1 + a)
	if z == 0 || z == m.K-1 {
		c = 1 / (1 + a)
	}
	return c * math.Pow(a, math.Abs(float64(z-x)))
}

// Sample draws x + N with N two-sided geometric, P(N = n) ∝ e^{−ε|n|},
// as the difference of two independent geometric variables, then clamps
// to {0, …, K−1}. Clamping is what the truncated channel is, so the draw
// is exact.
func (m *Geometric) Sample(rng *rand.Rand, x int) int {
	z := x + twoSided(rng, m.Epsilon)
	return min(max(z, 0), m.K-1)
}

// twoSided draws N with P(N = n) = (1−e^{−ε})/(1+e^{−ε}) e^{−ε|n|}, the
// difference of two independent geometric draws.
func twoSided(rng *rand.Rand, eps float64) int {
	a := geometricDraw(rng, eps)
	b := geometricDraw(rng, eps)
	return a - b
}

// geometricDraw draws G ≥ 0 with P(G = g) = (1−e^{−ε}) e^{−εg} by inverting
// the CDF: G = ⌊ln U / (−ε)⌋ for U uniform on (0, 1].
func geometricDraw(rng *rand.Rand, eps float64) int {
	u := 1 - rng.Float64() // (0, 1]
	return int(math.Floor(math.Log(u) / -eps))
}

// Likelihood sets dst[x] = P(r | x).
func (m *Geometric) Likelihood(dst []float64, r Report) ([]float64, float64) {
	dst = fill(dst, m.K, 0)
	for x := range dst {
		dst[x] = m.Prob(x, r.Symbol)
	}
	return dst, 0
}

// MulVecTo sets dst = A x, or Aᵀ x when trans (the output distribution
// of the input distribution x), in O(K). With A_xz = c_z a^{|z−x|},
// a = e^{−ε}, the sums s_z = Σ_x v_x a^{|z−x|} are two first-order
// recursions, l_z = v_z + a·l_{z−1} and r_z = v_z + a·r_{z+1}, with
// s = l + r − v: Aᵀx is c ⊙ s for v = x, and A x is s for v = c ⊙ x.
// As a < 1 the recursions do not amplify rounding; a convolution by FFT
// would cost O(K log K) and lose the relative precision of small sums.
func (m *Geometric) MulVecTo(dst []float64, trans bool, x []float64) []float64 {
	k := m.K
	if len(x) != k {
		panic("core: slice length mismatch")
	}
	dst = fill(dst, k, 0)
	a := math.Exp(-m.Epsilon)
	inner, end := (1-a)/(1+a), 1/(1+a)
	c := func(z int) float64 {
		if z == 0 || z == k-1 {
			return end
		}
		return inner
	}
	v := func(z int) float64 {
		if trans {
			return x[z]
		}
		return c(z) * x[z]
	}
	l := 0.0
	for z := range k {
		l = v(z) + a*l
		dst[z] = l
	}
	r := 0.0
	for z := k - 1; z >= 0; z-- {
		r = v(z) + a*r
		dst[z] += r - v(z)
		if trans {
			dst[z] *= c(z)
		}
	}
	return dst
}
