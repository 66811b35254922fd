package core

import (
	"context"
	"math"
	"math/rand/v2"
)

// KindURAP names uRAP (ULDP §4.2) in study files.
const KindURAP MechanismKind = "urappor"

// urapKind is uRAP (ULDP §4.2), registered in kindRegistry.
var urapKind = Kind{Name: KindURAP, Param: ParamEpsilon, Sensitive: true, Caps: CapBits | CapUtility,
	build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewURAP(a.Len(), s.Epsilon, s.Sensitive)
		return m, err
	},
}

// URAP is the utility-optimized RAPPOR of ULDP Def. 4 (restated in
// package core's doc, "Mechanisms"). The datum x is one-hot encoded in K bits that are
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

// bitProb is BitProb given θ and 1 − e^{−ε/2}. A sensitive bit that is
// not the datum's is 1 with probability 1/(1+e^{ε/2}), computed as such:
// 1 − θ cancels to 0 from ε ≈ 74 on.
func (m *URAP) bitProb(theta, keepN float64, x, j int) float64 {
	switch {
	case m.sens[j] && j == x:
		return theta
	case m.sens[j]:
		return 1 / (1 + math.Exp(m.Epsilon/2))
	case j == x:
		return keepN
	}
	return 0
}

// bitLogProbs returns ln P(bit j = 1 | x) and ln P(bit j = 0 | x) without
// cancellation: ∓softplus(±ε/2) on sensitive bits (as RAPPOR's),
// ln(1 − e^{−ε/2}) and −ε/2 on the datum's non-sensitive bit, −∞ and 0
// on the others.
func (m *URAP) bitLogProbs(x, j int) (l1, l0 float64) {
	half := m.Epsilon / 2
	switch {
	case m.sens[j] && j == x:
		return -softplus(-half), -softplus(half)
	case m.sens[j]:
		return -softplus(half), -softplus(-half)
	case j == x:
		return math.Log(-math.Expm1(-half)), -half
	}
	return math.Inf(-1), 0
}

// positiveOutputs marks uRAP's protected outputs as possible under every
// input (see positiveChannel).
func (m *URAP) positiveOutputs() {}

// SampleBits draws a report of x.
func (m *URAP) SampleBits(rng *rand.Rand, x int) Bits {
	theta, keepN := m.probs()
	return sampleBits(rng, m.K, func(j int) float64 { return m.bitProb(theta, keepN, x, j) })
}

// Likelihood sets dst[x] = P(v | x)·e^{−scale} and returns the log scale.
// The bits are independent given x, so ln P(v | x) is the sum over bits
// of their log-probabilities (bitLogProbs): the sum for the baseline in
// which no bit is the datum's, plus bit x's change from it. The changes
// are shifted by their largest, so that no value overflows at any ε.
func (m *URAP) Likelihood(dst []float64, rep Report) ([]float64, float64) {
	v := rep.Bits
	if v.Len() != m.K {
		panic("core: uRAP report length mismatch")
	}
	dst = fill(dst, m.K, 0)
	scale := 0.0
	for j := range m.K {
		scale += bitLog(m, -1, j, v.Bit(j))
	}
	if math.IsInf(scale, -1) {
		// A non-sensitive bit is set: only that input is possible, and at
		// most one such bit can be set.
		return m.revealing(dst, v)
	}
	shift := math.Inf(-1)
	for x := range m.K {
		b := v.Bit(x)
		dst[x] = bitLog(m, x, x, b) - bitLog(m, -1, x, b)
		shift = math.Max(shift, dst[x])
	}
	for x := range dst {
		dst[x] = math.Exp(dst[x] - shift)
	}
	return dst, scale + shift
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
		scale += bitLog(m, x, j, v.Bit(j))
	}
	if math.IsInf(scale, -1) {
		return dst, 0
	}
	dst[x] = 1
	return dst, scale
}

// bitLog returns ln P(bit j = b | x).
func bitLog(m bitLogProber, x, j, b int) float64 {
	l1, l0 := m.bitLogProbs(x, j)
	if b == 1 {
		return l1
	}
	return l0
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

// oneHot marks uRAP's bit j as depending on x only through x = j.
func (m *URAP) oneHot() {}
