package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// KindOLH and KindBLH name optimal and binary local hashing (Wang et
// al., USENIX Security 2017, §4.4) in study files.
const (
	KindOLH MechanismKind = "olh"
	KindBLH MechanismKind = "blh"
)

// olhKind and blhKind are local hashing with g = round(e^ε + 1) (or the
// spec's g) and g = 2, registered in kindRegistry.
var (
	olhKind = Kind{Name: KindOLH, Param: ParamEpsilon, Caps: CapHashed | CapOracle, Hashes: true,
		build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
			g := s.G
			if g == 0 {
				g = OptimalHashes(s.Epsilon)
			}
			m, err := NewLH(a.Len(), g, s.Epsilon)
			return m, err
		},
	}
	blhKind = Kind{Name: KindBLH, Param: ParamEpsilon, Caps: CapHashed | CapOracle,
		build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
			m, err := NewLH(a.Len(), 2, s.Epsilon)
			return m, err
		},
	}
)

// MaxHashes bounds g, the range of local hashing's hash: 2¹⁶ values,
// which an ε of 11 reaches (OLH's optimum round(e^ε + 1)).
const MaxHashes = 1 << 16

// OptimalHashes returns OLH's g = round(e^ε + 1), the range that
// minimises the variance of its estimate (Wang et al. 2017, §4.4),
// capped at MaxHashes.
func OptimalHashes(eps float64) int {
	g := math.Round(math.Exp(eps) + 1)
	if !(g < MaxHashes) {
		return MaxHashes
	}
	return int(g)
}

// LH is local hashing (Wang, Blocki, Li and Jha, "Locally differentially
// private protocols for frequency estimation", USENIX Security 2017,
// §4.4): a user draws a hash H_s from a family by its seed s, hashes her
// datum into H_s(x) in 0..g−1, and reports s with that value perturbed
// by g-ary randomised response:
//
//	P(s, v | x) = P(s) · e^ε/(e^ε + g − 1)  if v = H_s(x),
//	              P(s) · 1/(e^ε + g − 1)    otherwise.
//
// The ratio of two inputs' probabilities of a report is at most e^ε,
// and exactly e^ε for a seed whose hash separates them: it is ε-LDP
// whatever the hash family. OLH takes g = round(e^ε + 1), whose
// estimate has variance about 4e^ε/(n(e^ε − 1)²) a symbol (their eq.
// 15); BLH takes g = 2.
//
// The family is H_s(x) = ⌊g · hi32(mix(s·2³² + x)) / 2³²⌋, mix the
// splitmix64 finaliser (Steele, Lea and Flood 2014) and hi32 its upper
// 32 bits; seeds are drawn uniformly from the 32-bit integers. It is
// written out in docs/FILES.md, so that reports of other tools hashing
// the same way are read as privmap's, and privmap's by them.
//
// A report's likelihood column is 1 on the symbols hashing to its value
// and e^{−ε} elsewhere, O(K) hashes; the estimators group reports by
// seed, so that a seed's K hashes serve all its reports (hashTerm).
type LH struct {
	K, G    int
	Epsilon float64
}

// LH's capabilities.
var _ hasher = (*LH)(nil)

// NewLH returns local hashing on K symbols into g values.
func NewLH(k, g int, eps float64) (*LH, error) {
	if err := checkSize(k); err != nil {
		return nil, err
	}
	if err := checkEpsilon(eps); err != nil {
		return nil, err
	}
	if g < 2 || g > MaxHashes {
		return nil, fmt.Errorf("core: local hashing needs g in 2..%d hash values, got %d", MaxHashes, g)
	}
	return &LH{K: k, G: g, Epsilon: eps}, nil
}

// Inputs returns K.
func (m *LH) Inputs() int { return m.K }

// values returns g.
func (m *LH) values() int { return m.G }

// hash returns H_seed(x).
func (m *LH) hash(seed uint32, x int) int { return LocalHash(seed, x, m.G) }

// low returns e^{−ε}, the likelihood of a report at a symbol that does
// not hash to its value relative to one that does.
func (m *LH) low() float64 { return math.Exp(-m.Epsilon) }

// logKept returns ln(e^ε/(e^ε + g − 1)) = −ln(1 + (g − 1)e^{−ε}), the
// log-probability that the hash value is reported as it is.
func (m *LH) logKept() float64 { return -math.Log1p(float64(m.G-1) * math.Exp(-m.Epsilon)) }

// LocalHash returns H_seed(x) in 0..g−1: the upper 32 bits of the
// splitmix64 finaliser of seed·2³² + x, scaled to g by a multiply and a
// shift (Lemire 2019), so that each value takes ⌊2³²/g⌋ or ⌈2³²/g⌉ of
// the 32-bit words.
func LocalHash(seed uint32, x, g int) int {
	z := uint64(seed)<<32 | uint64(uint32(x))
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return int((z >> 32) * uint64(g) >> 32)
}

// SampleHash draws the report of x: a uniform seed, then x's hash value
// kept with probability e^ε/(e^ε + g − 1), else one of the other g − 1
// values uniformly.
func (m *LH) SampleHash(rng *rand.Rand, x int) Report {
	seed := rng.Uint32()
	v := m.hash(seed, x)
	if rng.Float64() >= math.Exp(m.logKept()) {
		o := rng.IntN(m.G - 1)
		if o >= v {
			o++
		}
		v = o
	}
	return HashReport(seed, v)
}

// Likelihood sets dst[x] = 1 where H_s(x) = v and e^{−ε} elsewhere, and
// returns ln(e^ε/(e^ε + g − 1)): P(s, v | x) = dst[x]·e^{scale} up to
// the seed's probability, which no symbol changes.
func (m *LH) Likelihood(dst []float64, r Report) ([]float64, float64) {
	dst = fill(dst, m.K, 0)
	low := m.low()
	for x := range dst {
		dst[x] = low
		if m.hash(r.Seed, x) == r.Symbol {
			dst[x] = 1
		}
	}
	return dst, m.logKept()
}

// positiveOutputs marks every report as possible under every input.
func (m *LH) positiveOutputs() {}

// shape says that a report is a seed and one of g values.
func (m *LH) shape() ReportShape { return ReportShape{Hashes: m.G} }
