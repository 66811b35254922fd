package core

import (
	"context"
	"math"
	"math/rand/v2"
)

// KindRAPPOR names basic one-time RAPPOR (FW eq. 12) in study files.
const KindRAPPOR MechanismKind = "rappor"

// rapporKind is basic one-time RAPPOR (FW eq. 12), registered in kindRegistry.
var rapporKind = Kind{Name: KindRAPPOR, Param: ParamEpsilon, Caps: CapBits | CapRAPPOR | CapOracle,
	build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewRAPPOR(a.Len(), s.Epsilon)
		return m, err
	},
}

// RAPPOR is basic one-time RAPPOR (Erlingsson et al.), FW eq. (12): the
// datum x is one-hot encoded in K bits and each bit is kept with
// probability p = e^{ε/2}/(1+e^{ε/2}) and flipped otherwise. It is ε-LDP:
// two inputs differ in two bits, each contributing a factor e^{ε/2}.
//
// Its 2^K outputs are never enumerated. With r = e^{ε/2} and v the
// reported bits,
//
//	P(v | x) = B(v) · r^{2v_x − 1},  B(v) = (1−p)^{|v|} p^{K−|v|},
//
// so a report's likelihood column costs O(K) and the common factor B(v),
// which underflows for large K, is returned as a log scale.
type RAPPOR struct {
	K       int
	Epsilon float64
}

// RAPPOR's capabilities.
var (
	_ BitChannel = (*RAPPOR)(nil)
	_ BitSampler = (*RAPPOR)(nil)
	_ bitFlipper = (*RAPPOR)(nil)
)

// NewRAPPOR returns basic one-time RAPPOR on K symbols.
func NewRAPPOR(k int, eps float64) (*RAPPOR, error) {
	if err := checkSize(k); err != nil {
		return nil, err
	}
	if err := checkEpsilon(eps); err != nil {
		return nil, err
	}
	return &RAPPOR{K: k, Epsilon: eps}, nil
}

// Inputs returns K.
func (m *RAPPOR) Inputs() int { return m.K }

// Bits returns K, the length of a report.
func (m *RAPPOR) Bits() int { return m.K }

// keep returns p = e^{ε/2}/(1+e^{ε/2}), the probability a bit is kept.
func (m *RAPPOR) keep() float64 { return 1 / (1 + math.Exp(-m.Epsilon/2)) }

// flipProb returns 1/(1+e^{ε/2}), the probability of flipping a bit,
// computed as such rather than as 1 − p, which cancels to 0 from
// ε ≈ 74 on.
func (m *RAPPOR) flipProb() float64 { return 1 / (1 + math.Exp(m.Epsilon/2)) }

// SampleBits draws a report of x.
func (m *RAPPOR) SampleBits(rng *rand.Rand, x int) Bits {
	p, q := m.keep(), m.flipProb()
	return sampleBits(rng, m.K, func(j int) float64 {
		if j == x {
			return p
		}
		return q
	})
}

// Likelihood sets dst and returns the log scale so that P(v | x) =
// dst[x]·e^{scale}. With r = e^{ε/2}, P(v | x) = B(v)·r^{2v_x−1}; the
// scale is ln B(v) ∓ ε/2, from ln p = −softplus(−ε/2) and
// ln(1−p) = −softplus(ε/2), so that dst holds 1 on the set bits and
// r^{−2} = e^{−ε} elsewhere (all 1 when no bit is set): no value
// overflows at any ε, and e^{−ε} underflows only past ε ≈ 745.
func (m *RAPPOR) Likelihood(dst []float64, rep Report) ([]float64, float64) {
	v := rep.Bits
	if v.Len() != m.K {
		panic("core: RAPPOR report length mismatch")
	}
	ones := v.Ones()
	half := m.Epsilon / 2
	scale := -float64(ones)*softplus(half) - float64(m.K-ones)*softplus(-half)
	if ones == 0 {
		return fill(dst, m.K, 1), scale - half
	}
	return setBitsColumn(dst, v, m.Epsilon), scale + half
}

// setForm returns e^{−ε} and the scale of a report with ones bits set,
// its column 1 on them and e^{−ε} elsewhere (see Likelihood).
func (m *RAPPOR) setForm(ones int) (low, scale float64) {
	half := m.Epsilon / 2
	scale = -float64(ones)*softplus(half) - float64(m.K-ones)*softplus(-half)
	if ones == 0 {
		return math.Exp(-m.Epsilon), scale - half + m.Epsilon
	}
	return math.Exp(-m.Epsilon), scale + half
}

// setBitsColumn returns the likelihood column of a one-hot report v with
// a bit set, whose datum's bit is e^ε times likelier set than unset
// (RAPPOR's and OUE's): 1 on the set bits and e^{−ε} elsewhere.
func setBitsColumn(dst []float64, v Bits, eps float64) []float64 {
	dst = fill(dst, v.Len(), math.Exp(-eps))
	for x := range v.Len() {
		if v.Bit(x) == 1 {
			dst[x] = 1
		}
	}
	return dst
}

// BitProb returns P(bit j = 1 | x): p when j = x, 1 − p otherwise.
func (m *RAPPOR) BitProb(x, j int) float64 {
	if j == x {
		return m.keep()
	}
	return m.flipProb()
}

// bitLogProbs returns ln P(bit j = 1 | x) and ln P(bit j = 0 | x):
// −softplus(∓ε/2), exact at every ε.
func (m *RAPPOR) bitLogProbs(x, j int) (l1, l0 float64) {
	kept, flipped := -softplus(-m.Epsilon/2), -softplus(m.Epsilon/2)
	if j == x {
		return kept, flipped
	}
	return flipped, kept
}

// positiveOutputs marks every output of RAPPOR as possible under every
// input (see positiveChannel).
func (m *RAPPOR) positiveOutputs() {}

// softplus returns ln(1 + e^a) without overflow or cancellation.
func softplus(a float64) float64 {
	if a > 0 {
		return a + math.Log1p(math.Exp(-a))
	}
	return math.Log1p(math.Exp(a))
}

// oneHot marks RAPPOR's bit j as depending on x only through x = j.
func (m *RAPPOR) oneHot() {}
