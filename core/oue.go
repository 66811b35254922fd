package core

import (
	"context"
	"math"
	"math/rand/v2"
)

// KindOUE names optimised unary encoding (Wang et al., USENIX Security
// 2017, §4.3) in study files.
const KindOUE MechanismKind = "oue"

// oueKind is optimised unary encoding, registered in kindRegistry.
var oueKind = Kind{Name: KindOUE, Param: ParamEpsilon, Caps: CapBits | CapOracle,
	build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewOUE(a.Len(), s.Epsilon)
		return m, err
	},
}

// OUE is optimised unary encoding (Wang, Blocki, Li and Jha, "Locally
// differentially private protocols for frequency estimation", USENIX
// Security 2017, §4.3): the datum x is one-hot encoded in K bits; bit x
// is reported 1 with probability p = ½, and every other bit 1 with
// probability q = 1/(e^ε + 1). The ratio of two inputs' probabilities
// of a report is at most p(1−q)/((1−p)q) = e^ε: it is ε-LDP. Wang et
// al. chose p and q to minimise the variance of the unbiased estimate,
// 4e^ε/(n(e^ε − 1)²) a symbol at small frequencies (their eq. 10).
//
// As RAPPOR's, a report's likelihood depends on x through v_x alone:
//
//	P(v | x) = C(v) · f(v_x),  C(v) = Π_j q^{v_j} (1−q)^{1−v_j},
//	f(1) = p/q,  f(0) = (1−p)/(1−q),
//
// so a likelihood column costs O(K), and f(0)/f(1) = e^{−ε}.
type OUE struct {
	K       int
	Epsilon float64
}

// OUE's capabilities.
var (
	_ BitChannel = (*OUE)(nil)
	_ BitSampler = (*OUE)(nil)
	_ oneHotBits = (*OUE)(nil)
)

// NewOUE returns optimised unary encoding on K symbols.
func NewOUE(k int, eps float64) (*OUE, error) {
	if err := checkSize(k); err != nil {
		return nil, err
	}
	if err := checkEpsilon(eps); err != nil {
		return nil, err
	}
	return &OUE{K: k, Epsilon: eps}, nil
}

// Inputs returns K.
func (m *OUE) Inputs() int { return m.K }

// Bits returns K, the length of a report.
func (m *OUE) Bits() int { return m.K }

// other returns q = 1/(e^ε + 1), the probability that a bit other than
// the datum's is 1.
func (m *OUE) other() float64 { return 1 / (1 + math.Exp(m.Epsilon)) }

// BitProb returns P(bit j = 1 | x): ½ when j = x, q otherwise.
func (m *OUE) BitProb(x, j int) float64 {
	if j == x {
		return 0.5
	}
	return m.other()
}

// bitLogProbs returns ln P(bit j = 1 | x) and ln P(bit j = 0 | x): ln ½
// twice on the datum's bit, −softplus(ε) and −softplus(−ε) on the
// others, exact at every ε.
func (m *OUE) bitLogProbs(x, j int) (l1, l0 float64) {
	if j == x {
		return -math.Ln2, -math.Ln2
	}
	return -softplus(m.Epsilon), -softplus(-m.Epsilon)
}

// oneHot marks OUE's bit j as depending on x only through x = j.
func (m *OUE) oneHot() {}

// positiveOutputs marks every output of OUE as possible under every
// input (see positiveChannel).
func (m *OUE) positiveOutputs() {}

// SampleBits draws a report of x.
func (m *OUE) SampleBits(rng *rand.Rand, x int) Bits {
	q := m.other()
	return sampleBits(rng, m.K, func(j int) float64 {
		if j == x {
			return 0.5
		}
		return q
	})
}

// Likelihood sets dst and returns the log scale so that P(v | x) =
// dst[x]·e^{scale}: dst is 1 on the set bits and e^{−ε} elsewhere (all 1
// when no bit is set), and the scale is ln C(v) + ln f(1) (or ln f(0)),
// from ln q = −softplus(ε) and ln(1−q) = −softplus(−ε): no value
// overflows at any ε.
func (m *OUE) Likelihood(dst []float64, rep Report) ([]float64, float64) {
	v := rep.Bits
	if v.Len() != m.K {
		panic("core: OUE report length mismatch")
	}
	ones := v.Ones()
	lq, l1q := -softplus(m.Epsilon), -softplus(-m.Epsilon)
	scale := float64(ones)*lq + float64(m.K-ones)*l1q
	if ones == 0 {
		return fill(dst, m.K, 1), scale - math.Ln2 - l1q
	}
	return setBitsColumn(dst, v, m.Epsilon), scale - math.Ln2 - lq
}

// setForm returns e^{−ε} and the scale of a report with ones bits set,
// its column 1 on them and e^{−ε} elsewhere (Likelihood's, whose flat
// column of a report with none set is 1 everywhere, scaled by e^{−ε}).
func (m *OUE) setForm(ones int) (low, scale float64) {
	lq, l1q := -softplus(m.Epsilon), -softplus(-m.Epsilon)
	scale = float64(ones)*lq + float64(m.K-ones)*l1q - math.Ln2
	if ones == 0 {
		return math.Exp(-m.Epsilon), scale - l1q + m.Epsilon
	}
	return math.Exp(-m.Epsilon), scale - lq
}
