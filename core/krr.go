package core

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// KindKRR names k-RR (FW eq. 1) in study files.
const KindKRR MechanismKind = "krr"

// krrKind is k-RR (FW eq. 1), registered in kindRegistry.
var krrKind = Kind{TwoValued: true, Name: KindKRR, Param: ParamEpsilon, Caps: CapOracle,
	build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewKRR(a.Len(), s.Epsilon)
		return m, err
	},
}

// KRR is k-ary randomized response (Warner; Kairouz et al.), FW eq. (1):
//
//	P(z | x) = e^ε / (K − 1 + e^ε)   if z = x
//	P(z | x) = 1 / (K − 1 + e^ε)     otherwise
//
// on the alphabet {0, …, K−1} for inputs and outputs. It is ε-LDP.
type KRR struct {
	K       int
	Epsilon float64
}

// KRR's capabilities.
var (
	_ Channel     = (*KRR)(nil)
	_ localReader = (*KRR)(nil)
	_ Sampler     = (*KRR)(nil)
	_ operator    = (*KRR)(nil)
)

// NewKRR returns k-RR on K symbols with privacy level eps.
func NewKRR(k int, eps float64) (*KRR, error) {
	if err := checkSize(k); err != nil {
		return nil, err
	}
	if err := checkEpsilon(eps); err != nil {
		return nil, err
	}
	return &KRR{K: k, Epsilon: eps}, nil
}

// Inputs returns K.
func (m *KRR) Inputs() int { return m.K }

// Outputs returns K.
func (m *KRR) Outputs() int { return m.K }

// positiveOutputs marks every output of k-RR as possible under every
// input (see positiveChannel).
func (m *KRR) positiveOutputs() {}

// keep returns P(z = x) = e^ε/(K−1+e^ε), computed as 1/(1+(K−1)e^−ε) so
// that large ε does not overflow.
func (m *KRR) keep() float64 { return 1 / (1 + float64(m.K-1)*math.Exp(-m.Epsilon)) }

// other returns P(z = y) for one y ≠ x: 1/(K−1+e^ε), computed as
// keep·e^−ε, which keeps the ratio keep/other = e^ε to rounding at every
// ε; (1 − keep)/(K−1) cancels catastrophically once keep rounds near 1
// (at ε = 42 it gave a ratio of e^41.99, at ε = 45 none at all).
func (m *KRR) other() float64 { return m.keep() * math.Exp(-m.Epsilon) }

// Prob returns P(z | x).
func (m *KRR) Prob(x, z int) float64 {
	if x == z {
		return m.keep()
	}
	return m.other()
}

// Sample reports x with probability e^ε/(K−1+e^ε), otherwise one of the
// other K−1 symbols uniformly.
func (m *KRR) Sample(rng *rand.Rand, x int) int {
	if rng.Float64() < m.keep() {
		return x
	}
	z := rng.IntN(m.K - 1)
	if z >= x {
		z++
	}
	return z
}

// Likelihood sets dst[x] = P(r | x) for every x and returns dst with log
// scale 0, allocating dst when it is nil.
func (m *KRR) Likelihood(dst []float64, r Report) ([]float64, float64) {
	dst = fill(dst, m.K, m.other())
	dst[r.Symbol] = m.keep()
	return dst, 0
}

// fill returns dst (allocated when nil) of length n with every entry v.
func fill(dst []float64, n int, v float64) []float64 {
	if dst == nil {
		dst = make([]float64, n)
	}
	if len(dst) != n {
		panic("core: slice length mismatch")
	}
	for i := range dst {
		dst[i] = v
	}
	return dst
}

// rates returns r = 1/D, the probability of each other output, and
// p − r = (e^ε − 1)/D, with D = K − 1 + e^ε: A = r·11ᵀ + (p − r)·I;
// computed from keep, as other is, so that e^ε never overflows.
func (m *KRR) rates() (r, pr float64) {
	return m.other(), -m.keep() * math.Expm1(-m.Epsilon)
}

// MLE returns the maximum-likelihood estimate of the distribution of the
// users' data from the counts of their k-RR reports (counts[z] reports of
// z), in closed form. The reports' distribution π = r + (p − r)θ, with
// p = e^ε/D and r = 1/D (D = K − 1 + e^ε), maximises Σ q_z ln π_z over
// π_z ≥ r, Σ π_z = 1; its KKT conditions give the water-filling
//
//	π_z = max(r, q_z/λ),  λ such that Σ_z π_z = 1,
//
// and θ = (π − r)/(p − r). It is the fixed point GIBU and IBU converge
// to on these reports, and serves as their oracle.
func (m *KRR) MLE(counts []float64) []float64 {
	if len(counts) != m.K {
		panic("core: slice length mismatch")
	}
	n := 0.0
	for _, c := range counts {
		n += c
	}
	r, pr := m.rates()
	order := make([]int, m.K)
	for z := range order {
		order[z] = z
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(counts[b], counts[a]) })
	// The j largest counts are above the water line: λ = (their sum/n) /
	// (1 − (K−j)r). Take the largest j whose j-th count clears it.
	lambda, top := 1.0, 0.0
	for j, z := range order {
		top += counts[z] / n
		l := top / (1 - float64(m.K-j-1)*r)
		if counts[z]/n/l <= r {
			break
		}
		lambda = l
	}
	theta := make([]float64, m.K)
	for z, c := range counts {
		theta[z] = math.Max(0, c/n/lambda-r) / pr
	}
	return theta
}

// MulVecTo sets dst = A x (the channel is symmetric, so also Aᵀ x) in
// O(K): A = r·11ᵀ + (p − r)·I with p = e^ε/D and r = 1/D, so
//
//	(A x)_z = r·Σ x + (p − r)·x_z.
//
// It allocates dst when it is nil; trans is accepted for the operator
// interface of the estimators.
func (m *KRR) MulVecTo(dst []float64, _ bool, x []float64) []float64 {
	return m.channel().MulVecTo(dst, false, x)
}

// twoValued is the symmetric K×K operator off·11ᵀ + diff·I: k-RR's
// channel, and its entrywise square.
type twoValued struct {
	k         int
	off, diff float64
}

// MulVecTo sets dst = off·Σx + diff·x, allocating dst when it is nil.
func (t twoValued) MulVecTo(dst []float64, _ bool, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, t.k)
	}
	if len(x) != t.k || len(dst) != t.k {
		panic("core: slice length mismatch")
	}
	s := t.off * floats.Sum(x)
	for z, v := range x {
		dst[z] = s + t.diff*v
	}
	return dst
}

// sameChannel reports whether o is a k-RR of the same K and ε
// (closedFormer).
func (m *KRR) sameChannel(o Channel) bool {
	k, ok := o.(*KRR)
	return ok && k.K == m.K && k.Epsilon == m.Epsilon
}

// squared returns A∘A of k-RR: keep² on the diagonal, other² elsewhere.
func (m *KRR) squared() operator {
	r, pr := m.rates()
	return twoValued{k: m.K, off: r * r, diff: (r+pr)*(r+pr) - r*r}
}

// channel returns k-RR's likelihood columns, other·1 + (keep − other)·e_z
// (twoValuedChannel).
func (m *KRR) channel() twoValued {
	r, pr := m.rates()
	return twoValued{k: m.K, off: r, diff: pr}
}

// gridShape says k-RR's channel is drawn on no grid: localReader.
func (m *KRR) gridShape() (cols, rows int, ok bool) { return 0, 0, false }

// setLocal sets ch's channel to m's, its output law at θ: localReader.
func (m *KRR) setLocal(ch *localChannel, theta []float64) {
	ch.krr = m
	ch.out = m.MulVecTo(nil, true, theta)
}
