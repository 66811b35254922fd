package core

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// KindSS names subset selection (Ye and Barg, IEEE Trans. Inf. Theory
// 2018; Wang et al. 2016) in study files.
const KindSS MechanismKind = "ss"

// ssKind is subset selection, registered in kindRegistry.
var ssKind = Kind{Name: KindSS, Param: ParamEpsilon, Caps: CapBits | CapOracle,
	build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewSS(a.Len(), s.Epsilon)
		return m, err
	},
}

// SS is subset selection (Ye and Barg, "Optimal schemes for discrete
// distribution estimation under locally differential privacy", IEEE
// Trans. Inf. Theory 2018, §III; S. Wang et al., "Mutual information
// optimally local private discrete distribution estimation", 2016): a
// user reports a subset S of ω of the K symbols, as a K-bit vector with
// ω bits set, drawn with
//
//	P(S | x) = e^ε / Z  if x ∈ S,  1 / Z  otherwise,
//	Z = C(K−1, ω−1) e^ε + C(K−1, ω),
//
// which is exactly ε-LDP. Ye and Barg's optimum is ω = ⌈K/(e^ε + 1)⌉
// (multi-freq-ldpy rounds instead of taking the ceiling; the two differ
// by one symbol at most). Its bits are not independent, so it is not a
// BitChannel; its likelihood column is 1 on S and e^{−ε} elsewhere, as
// OUE's (setForm).
type SS struct {
	K, Omega int
	Epsilon  float64
}

// SS's capabilities.
var (
	_ BitSampler = (*SS)(nil)
	_ setReports = (*SS)(nil)
)

// NewSS returns subset selection on K symbols with Ye and Barg's ω.
func NewSS(k int, eps float64) (*SS, error) {
	if err := checkSize(k); err != nil {
		return nil, err
	}
	if err := checkEpsilon(eps); err != nil {
		return nil, err
	}
	w := int(math.Ceil(float64(k) / (math.Exp(eps) + 1)))
	return &SS{K: k, Omega: max(1, min(w, k-1)), Epsilon: eps}, nil
}

// Inputs returns K.
func (m *SS) Inputs() int { return m.K }

// Bits returns K, the length of a report.
func (m *SS) Bits() int { return m.K }

// kept returns P(x ∈ S | x) = ω e^ε/(ω e^ε + K − ω).
func (m *SS) kept() float64 {
	w := float64(m.Omega)
	return 1 / (1 + (float64(m.K)-w)/w*math.Exp(-m.Epsilon))
}

// SampleBits draws the report of x: x and ω − 1 others with probability
// kept, else ω others, the others uniform without replacement (a
// partial Fisher–Yates shuffle of the K − 1 symbols other than x).
func (m *SS) SampleBits(rng *rand.Rand, x int) Bits {
	bits := make([]byte, m.K)
	others := m.Omega
	if rng.Float64() < m.kept() {
		bits[x] = 1
		others--
	}
	// Floyd's algorithm: others distinct picks from the K − 1 symbols
	// other than x, numbered 0..K−2 (x's successors shifted down).
	n := m.K - 1
	for j := n - others; j < n; j++ {
		y := skip(rng.IntN(j+1), x)
		if bits[y] == 1 {
			y = skip(j, x)
		}
		bits[y] = 1
	}
	return NewBits(bits)
}

// skip maps i in 0..K−2 to the symbols other than x.
func skip(i, x int) int {
	if i >= x {
		return i + 1
	}
	return i
}

// logNorm returns ln(Z / C(K−1, ω−1)) − ε = ln(1 + (K−ω)/(ω e^ε)),
// from C(K−1, ω) = C(K−1, ω−1)(K−ω)/ω.
func (m *SS) logNorm() float64 {
	w := float64(m.Omega)
	return math.Log1p((float64(m.K) - w) / w * math.Exp(-m.Epsilon))
}

// logChoose returns ln C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// setForm returns e^{−ε} and ln(e^ε/Z) = −ln C(K−1, ω−1) − logNorm, the
// scale of a report's column 1 on S and e^{−ε} elsewhere.
func (m *SS) setForm(ones int) (low, scale float64) {
	return math.Exp(-m.Epsilon), -logChoose(m.K-1, m.Omega-1) - m.logNorm()
}

// checkReport returns an error unless v has ω bits set: the other bit
// vectors are not reports of the mechanism.
func (m *SS) checkReport(v Bits) error {
	if n := v.Ones(); n != m.Omega {
		return fmt.Errorf("core: report %q has %d bits set, want subset selection's ω = %d", clip(v.String(), 40), n, m.Omega)
	}
	return nil
}

// Likelihood sets dst to 1 on S and e^{−ε} elsewhere and returns
// ln(e^ε/Z).
func (m *SS) Likelihood(dst []float64, r Report) ([]float64, float64) {
	if r.Bits.Len() != m.K {
		panic("core: SS report length mismatch")
	}
	_, scale := m.setForm(m.Omega)
	return setBitsColumn(dst, r.Bits, m.Epsilon), scale
}

// designLDP returns ε: a subset's probability is e^ε/Z under the
// inputs it holds and 1/Z under the others, and some subset holds x and
// not x' whenever 1 ≤ ω < K, so the worst ratio is e^ε exactly.
func (m *SS) designLDP() float64 { return m.Epsilon }

// positiveOutputs marks every subset as possible under every input.
func (m *SS) positiveOutputs() {}

// bayesSuccess returns subset selection's Bayes vulnerability without
// its C(K, ω) reports: with π sorted decreasing, a subset holding
// symbol 1 is best guessed by it, e^ε π₁/Z; one whose first symbol is
// i ≥ 2 by i or 1, max(e^ε π_i, π₁)/Z, and C(K−i, ω−1) subsets have
// first symbol i. Divided by C(K−1, ω−1), with r_i = C(K−i, ω−1)/
// C(K−1, ω−1) (r₂ = (K−ω)/(K−1), r_{i+1} = r_i (K−i−ω+1)/(K−i)) and
// Z/C(K−1, ω−1) = e^ε + (K−ω)/ω,
//
//	V = (e^ε π₁ + Σ_{i≥2} r_i max(e^ε π_i, π₁)) / (e^ε + (K−ω)/ω).
//
// O(K log K); divided by e^ε throughout, so that no term overflows.
func (m *SS) bayesSuccess(pi []float64) float64 {
	sorted := slices.Clone(pi)
	slices.SortFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) }) // largest first
	k, w := m.K, m.Omega
	low := math.Exp(-m.Epsilon)
	v, r := sorted[0], float64(k-w)/float64(k-1)
	for i := 2; i <= k && r > 0; i++ {
		v += r * math.Max(sorted[i-1], low*sorted[0])
		r *= float64(k-i-w+1) / float64(k-i)
	}
	return v / (1 + float64(k-w)/float64(w)*low)
}

// shape says that a report is ω of the K symbols.
func (m *SS) shape() ReportShape { return ReportShape{Subset: m.Omega} }
