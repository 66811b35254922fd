package core

import (
	"math"
	"math/rand/v2"
)

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

// flipProb returns 1/(1+e^{ε/2}), the probability of flipping a bit.
func (m *RAPPOR) flipProb() float64 { return 1 / (1 + math.Exp(m.Epsilon/2)) }

// SampleBits draws a report of x.
func (m *RAPPOR) SampleBits(rng *rand.Rand, x int) Bits {
	p := m.keep()
	return sampleBits(rng, m.K, func(j int) float64 {
		if j == x {
			return p
		}
		return 1 - p
	})
}

// Likelihood sets dst[x] = r^{2v_x−1} and returns the log scale ln B(v),
// so that P(v | x) = dst[x]·e^{scale}.
func (m *RAPPOR) Likelihood(dst []float64, rep Report) ([]float64, float64) {
	v := rep.Bits
	if v.Len() != m.K {
		panic("core: RAPPOR report length mismatch")
	}
	p := m.keep()
	r := math.Exp(m.Epsilon / 2)
	dst = fill(dst, m.K, 1/r)
	ones := 0
	for x := range m.K {
		if v.Bit(x) == 1 {
			dst[x] = r
			ones++
		}
	}
	return dst, float64(ones)*math.Log1p(-p) + float64(m.K-ones)*math.Log(p)
}

// BitProb returns P(bit j = 1 | x): p when j = x, 1 − p otherwise.
func (m *RAPPOR) BitProb(x, j int) float64 {
	if j == x {
		return m.keep()
	}
	return 1 - m.keep()
}
