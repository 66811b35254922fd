package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// KindURR names uRR (ULDP §4.1) in study files.
const KindURR MechanismKind = "urr"

// urrKind is uRR (ULDP §4.1), registered in kindRegistry.
var urrKind = Kind{Name: KindURR, Param: ParamEpsilon, Sensitive: true, Caps: CapUtility,
	build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewURR(a.Len(), s.Epsilon, s.Sensitive)
		return m, err
	},
}

// URR is the utility-optimized randomized response of ULDP Def. 3 (formulas
// restated in package core's doc, "Mechanisms"). X_S ⊆ X is the sensitive set and X_N
// = X ∖ X_S; outputs are X, protected Y_P = X_S, invertible Y_I = X_N. With D
// = |X_S| + e^ε − 1:
//
//	P(x | x) = e^ε/D        x ∈ X_S
//	P(y | x) = 1/D          x ∈ X_S, y ∈ X_S ∖ {x}
//	P(y | x) = 1/D          x ∈ X_N, y ∈ X_S
//	P(x | x) = (e^ε − 1)/D  x ∈ X_N
//	0 otherwise.
//
// It is (X_S, Y_P, ε)-ULDP: ε-LDP on the protected outputs, and every
// invertible output reveals its one possible input.
type URR struct{ uldpBase }

// URR's capabilities.
var (
	_ Channel          = (*URR)(nil)
	_ Sampler          = (*URR)(nil)
	_ operator         = (*URR)(nil)
	_ utilityOptimized = (*URR)(nil)
	_ empirical        = (*URR)(nil)
)

// NewURR returns uRR on K symbols with sensitive symbols sensitive.
func NewURR(k int, eps float64, sensitive []int) (*URR, error) {
	b, err := newULDPBase(k, eps, sensitive)
	if err != nil {
		return nil, err
	}
	return &URR{b}, nil
}

// uldpBase holds what uRR and uRAP share: K symbols, ε and the sensitive
// set X_S.
type uldpBase struct {
	K         int
	Epsilon   float64
	Sensitive []int // sorted, distinct
	sens      []bool
}

func newULDPBase(k int, eps float64, sensitive []int) (uldpBase, error) {
	if err := checkSize(k); err != nil {
		return uldpBase{}, err
	}
	if err := checkEpsilon(eps); err != nil {
		return uldpBase{}, err
	}
	s, mask, err := sensitiveSet(k, sensitive)
	if err != nil {
		return uldpBase{}, err
	}
	return uldpBase{K: k, Epsilon: eps, Sensitive: s, sens: mask}, nil
}

// Inputs returns K.
func (b *uldpBase) Inputs() int { return b.K }

// IsSensitive reports whether x ∈ X_S (and so whether output or bit x is
// protected).
func (b *uldpBase) IsSensitive(x int) bool { return b.sens[x] }

// sensitiveSet validates and sorts a sensitive set and returns its mask.
func sensitiveSet(k int, sensitive []int) ([]int, []bool, error) {
	if len(sensitive) == 0 {
		return nil, nil, fmt.Errorf("core: the sensitive set is empty")
	}
	mask := make([]bool, k)
	for _, x := range sensitive {
		if x < 0 || x >= k {
			return nil, nil, fmt.Errorf("core: sensitive symbol %d out of range 0..%d", x, k-1)
		}
		if mask[x] {
			return nil, nil, fmt.Errorf("core: sensitive symbol %d listed twice", x)
		}
		mask[x] = true
	}
	s := slices.Clone(sensitive)
	slices.Sort(s)
	return s, mask, nil
}

// Outputs returns K.
func (m *URR) Outputs() int { return m.K }

// positiveOutputs marks uRR's protected outputs as possible under every
// input (see positiveChannel).
func (m *URR) positiveOutputs() {}

// probs returns e^ε/D, 1/D and (e^ε−1)/D.
func (m *URR) probs() (keepS, toS, keepN float64) {
	// Divide through by e^ε so that large ε does not overflow.
	a := math.Exp(-m.Epsilon)
	d := float64(len(m.Sensitive))*a + 1 - a // D e^{−ε}
	return 1 / d, a / d, (1 - a) / d
}

// Prob returns P(y | x).
func (m *URR) Prob(x, y int) float64 {
	keepS, toS, keepN := m.probs()
	switch {
	case m.sens[x] && x == y:
		return keepS
	case m.sens[y]:
		return toS
	case x == y:
		return keepN
	}
	return 0
}

// Sample draws the output of x.
func (m *URR) Sample(rng *rand.Rand, x int) int {
	keepS, _, keepN := m.probs()
	u := rng.Float64()
	if m.sens[x] {
		if u < keepS || len(m.Sensitive) == 1 {
			return x
		}
		// One of the other |X_S|−1 sensitive symbols, uniformly.
		i := rng.IntN(len(m.Sensitive) - 1)
		if m.Sensitive[i] >= x {
			i++
		}
		return m.Sensitive[i]
	}
	if u < keepN {
		return x
	}
	return m.Sensitive[rng.IntN(len(m.Sensitive))]
}

// Likelihood sets dst[x] = P(r | x).
func (m *URR) Likelihood(dst []float64, r Report) ([]float64, float64) {
	dst = fill(dst, m.K, 0)
	for x := range dst {
		dst[x] = m.Prob(x, r.Symbol)
	}
	return dst, 0
}

// empirical returns the output frequencies f of g's reports and uRR's
// estimator, with D = |X_S| + e^ε − 1 (ULDP §4.1):
//
//	p̂(x) = f(x)·D/(e^ε − 1) − 1/(e^ε − 1)  on X_S,  f(x)·D/(e^ε − 1)  on X_N.
func (m *URR) empirical(g *Groups) (f, scale, offset []float64) {
	n := float64(g.N())
	f = make([]float64, m.K)
	for _, gr := range g.List {
		f[gr.Report.Symbol] += float64(gr.Count) / n
	}
	em1 := math.Expm1(m.Epsilon)
	d := float64(len(m.Sensitive)) + em1
	scale, offset = fill(nil, m.K, d/em1), make([]float64, m.K)
	for _, x := range m.Sensitive {
		offset[x] = 1 / em1
	}
	return f, scale, offset
}

// MulVecTo sets dst = A x, or Aᵀ x when trans, in O(K). With keepN =
// (e^ε−1)/D and 1/D the probability of each sensitive output other
// than the datum (ULDP Def. 3):
//
//	(Aᵀθ)_y = Σθ/D·[y ∈ X_S] + keepN·θ_y
//	(A v)_x = Σ_{y∈X_S} v_y/D + keepN·v_x
//
// It allocates dst when it is nil.
func (m *URR) MulVecTo(dst []float64, trans bool, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, m.K)
	}
	if len(x) != m.K || len(dst) != m.K {
		panic("core: slice length mismatch")
	}
	_, toS, keepN := m.probs()
	s := 0.0
	if trans {
		s = floats.Sum(x)
	} else {
		for _, y := range m.Sensitive {
			s += x[y]
		}
	}
	s *= toS
	for z, v := range x {
		dst[z] = keepN * v
	}
	// Aᵀθ adds the shared term to the sensitive outputs only, A v to
	// every input.
	if trans {
		for _, y := range m.Sensitive {
			dst[y] += s
		}
	} else {
		for z := range dst {
			dst[z] += s
		}
	}
	return dst
}
