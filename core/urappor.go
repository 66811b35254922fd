package core

import (
	"math"
	"math/rand/v2"
)

// URAP is the utility-optimized RAPPOR of ULDP Def. 4 (restated in
// docs/ARCHITECTURE.md §3). The datum x is one-hot encoded in K bits that are
// sanitised independently, with θ = e^{ε/2}/(e^{ε/2}+1):
//
//	sensitive bit j:      P(1) = θ if x = j, else 1 − θ
//	non-sensitive bit j:  P(1) = 1 − e^{−ε/2} if x = j, else 0
//
// Protected outputs are those whose non-sensitive bits are all 0; an
// output with a non-sensitive bit j set reveals x = j. It is
// (X_S, Y_P, ε)-ULDP.
type URAP struct{ uldpBase }

// URAP's capabilities.
var (
	_ BitChannel       = (*URAP)(nil)
	_ BitSampler       = (*URAP)(nil)
	_ utilityOptimized = (*URAP)(nil)
	_ empirical        = (*URAP)(nil)
)

// NewURAP returns uRAP on K symbols with sensitive symbols sensitive.
func NewURAP(k int, eps float64, sensitive []int) (*URAP, error) {
	b, err := newULDPBase(k, eps, sensitive)
	if err != nil {
		return nil, err
	}
	return &URAP{b}, nil
}

// Bits returns K, the length of a report.
func (m *URAP) Bits() int { return m.K }

// BitProb returns P(bit j = 1 | x).
func (m *URAP) BitProb(x, j int) float64 {
	theta, keepN := m.probs()
	return m.bitProb(theta, keepN, x, j)
}

// probs returns θ = e^{ε/2}/(e^{ε/2}+1) and 1 − e^{−ε/2}.
func (m *URAP) probs() (theta, keepN float64) {
	return 1 / (1 + math.Exp(-m.Epsilon/2)), -math.Expm1(-m.Epsilon / 2)
}

// bitProb is BitProb given θ and 1 − e^{−ε/2}.
func (m *URAP) bitProb(theta, keepN float64, x, j int) float64 {
	switch {
	case m.sens[j] && j == x:
		return theta
	case m.sens[j]:
		return 1 - theta
	case j == x:
		return keepN
	}
	return 0
}

// SampleBits draws a report of x.
func (m *URAP) SampleBits(rng *rand.Rand, x int) Bits {
	theta, keepN := m.probs()
	return sampleBits(rng, m.K, func(j int) float64 { return m.bitProb(theta, keepN, x, j) })
}

// Likelihood sets dst[x] = P(v | x)·e^{−scale} and returns the log scale.
// The bits are independent given x, so P(v | x) is the product over bits;
// it is computed as the product for the all-zero-datum baseline, held in
// the scale, times the ratio of bit x's probabilities, as for RAPPOR.
func (m *URAP) Likelihood(dst []float64, rep Report) ([]float64, float64) {
	v := rep.Bits
	if v.Len() != m.K {
		panic("core: uRAP report length mismatch")
	}
	dst = fill(dst, m.K, 0)
	// Baseline: every bit as if it were not the datum's.
	scale := 0.0
	for j := range m.K {
		scale += math.Log(bitP(m.BitProb(-1, j), v.Bit(j)))
	}
	if math.IsInf(scale, -1) {
		// A non-sensitive bit is set: only that input is possible, and at
		// most one such bit can be set.
		return m.revealing(dst, v)
	}
	for x := range m.K {
		b := v.Bit(x)
		dst[x] = bitP(m.BitProb(x, x), b) / bitP(m.BitProb(-1, x), b)
	}
	return dst, scale
}

// revealing fills dst for a report with a non-sensitive bit set.
func (m *URAP) revealing(dst []float64, v Bits) ([]float64, float64) {
	x := -1
	for j := range m.K {
		if !m.sens[j] && v.Bit(j) == 1 {
			if x >= 0 {
				return dst, 0 // two revealing bits: impossible under every input
			}
			x = j
		}
	}
	scale := 0.0
	for j := range m.K {
		scale += math.Log(bitP(m.BitProb(x, j), v.Bit(j)))
	}
	if math.IsInf(scale, -1) {
		return dst, 0
	}
	dst[x] = 1
	return dst, scale
}

// bitP returns P(bit = b) for a bit that is 1 with probability p1.
func bitP(p1 float64, b int) float64 {
	if b == 1 {
		return p1
	}
	return 1 - p1
}

// empirical returns the bit frequencies f of g's reports and uRAP's
// estimator, with θ = e^{ε/2}/(e^{ε/2}+1) (ULDP §4.2):
//
//	p̂(x) = (f_x − (1−θ))/(2θ − 1)  on X_S,  f_x/(1 − e^{−ε/2})  on X_N.
func (m *URAP) empirical(g *Groups) (f, scale, offset []float64) {
	n := float64(g.N())
	f = make([]float64, m.K)
	for _, gr := range g.List {
		for x := range m.K {
			f[x] += float64(gr.Count*gr.Report.Bits.Bit(x)) / n
		}
	}
	theta, keepN := m.probs()
	scale, offset = make([]float64, m.K), make([]float64, m.K)
	for x := range m.K {
		if m.IsSensitive(x) {
			scale[x], offset[x] = 1/(2*theta-1), (1-theta)/(2*theta-1)
		} else {
			scale[x] = 1 / keepN
		}
	}
	return f, scale, offset
}
