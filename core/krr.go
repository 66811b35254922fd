package core

import (
	"math"
	"math/rand/v2"
)

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
	_ Channel = (*KRR)(nil)
	_ Sampler = (*KRR)(nil)
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

// keep returns P(z = x) = e^ε/(K−1+e^ε), computed as 1/(1+(K−1)e^−ε) so
// that large ε does not overflow.
func (m *KRR) keep() float64 { return 1 / (1 + float64(m.K-1)*math.Exp(-m.Epsilon)) }

// other returns P(z = y) for one y ≠ x: 1/(K−1+e^ε).
func (m *KRR) other() float64 { return (1 - m.keep()) / float64(m.K-1) }

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
