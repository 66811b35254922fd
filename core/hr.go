package core

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// KindHR names the Hadamard response (Acharya, Sun and Zhang, AISTATS
// 2019) in study files.
const KindHR MechanismKind = "hr"

// hrKind is the Hadamard response, registered in kindRegistry.
var hrKind = Kind{Name: KindHR, Param: ParamEpsilon, Caps: CapOracle, outputs: hrOutputs,
	build: func(_ context.Context, s MechanismSpec, a Alphabet, _ func(int, float64)) (Mechanism, error) {
		m, err := NewHR(a.Len(), s.Epsilon)
		return m, err
	},
}

// HR is the Hadamard response of Acharya, Sun and Zhang ("Hadamard
// response: estimating distributions privately, efficiently, and with
// little communication", AISTATS 2019, §3), in its form for one block:
// with K' the smallest power of two above K, symbol x owns the half
// C_x = {y < K' : H(x+1, y) = +1} of the outputs, H the Sylvester
// Hadamard matrix, H(i, y) = (−1)^{popcount(i ∧ y)}; a user reports an
// output drawn uniformly from C_x with probability e^ε/(e^ε + 1), else
// uniformly from the other half:
//
//	P(y | x) = 2e^ε / (K'(e^ε + 1))  if y ∈ C_x,  2 / (K'(e^ε + 1))  otherwise.
//
// Every two symbols' halves meet in K'/4 outputs, so the ratio of two
// inputs' probabilities of an output is at most e^ε: it is exactly
// ε-LDP. A report is one of K' < 2K + 2 symbols (log₂ K' bits), and its
// likelihood column, two-valued by the parity of popcount((x+1) ∧ y),
// costs O(K).
type HR struct {
	K       int
	Epsilon float64
	out     int     // K'
	in, off float64 // P(y | x) for y in C_x and out of it
}

// HR's capabilities.
var (
	_ Channel = (*HR)(nil)
	_ Sampler = (*HR)(nil)
)

// NewHR returns the Hadamard response on K symbols.
func NewHR(k int, eps float64) (*HR, error) {
	if err := checkSize(k); err != nil {
		return nil, err
	}
	if err := checkEpsilon(eps); err != nil {
		return nil, err
	}
	out := hrOutputs(k)
	if out > MaxSymbols {
		return nil, fmt.Errorf("core: the Hadamard response on %d symbols reports one of %d outputs, more than the %d privmap handles", k, out, MaxSymbols)
	}
	m := &HR{K: k, Epsilon: eps, out: out}
	half := 2 / float64(out)
	m.in, m.off = half/(1+math.Exp(-eps)), half/(1+math.Exp(eps))
	return m, nil
}

// hrOutputs returns K', the smallest power of two above k.
func hrOutputs(k int) int { return 1 << bits.Len(uint(k)) }

// Inputs returns K.
func (m *HR) Inputs() int { return m.K }

// Outputs returns K', the smallest power of two above K.
func (m *HR) Outputs() int { return m.out }

// positiveOutputs marks every output as possible under every input (see
// positiveChannel).
func (m *HR) positiveOutputs() {}

// inHalf reports whether output y is in C_x.
func inHalf(x, y int) bool { return bits.OnesCount(uint(x+1)&uint(y))%2 == 0 }

// Prob returns P(y | x): 2e^ε/(K'(e^ε+1)) in C_x, 2/(K'(e^ε+1)) out of
// it, computed without overflow at any ε.
func (m *HR) Prob(x, y int) float64 {
	if inHalf(x, y) {
		return m.in
	}
	return m.off
}

// Sample draws the report of x: the half, then an output of it by
// rejection from all K' (each half holds K'/2 outputs, so two draws on
// average).
func (m *HR) Sample(rng *rand.Rand, x int) int {
	want := rng.Float64() < 1/(1+math.Exp(-m.Epsilon))
	for {
		if y := rng.IntN(m.out); inHalf(x, y) == want {
			return y
		}
	}
}

// Likelihood sets dst[x] = P(y | x)·e^{−scale}: 1 for the symbols whose
// half holds y, e^{−ε} for the others, and returns ln P(y | x ∈ its half).
func (m *HR) Likelihood(dst []float64, r Report) ([]float64, float64) {
	dst = fill(dst, m.K, 0)
	low := math.Exp(-m.Epsilon)
	for x := range dst {
		dst[x] = low
		if inHalf(x, r.Symbol) {
			dst[x] = 1
		}
	}
	return dst, math.Log(m.in)
}

// HR's operator capabilities.
var (
	_ operator = (*HR)(nil)
	_ worker   = (*HR)(nil)
	_ squarer  = (*HR)(nil)
)

// MulVecTo sets dst = A v (v over the K' outputs, dst over the K
// inputs), or Aᵀθ when trans, in O(K' log K') by the fast
// Walsh–Hadamard transform rather than K·K' products: with H the
// Sylvester matrix of order K', [y ∈ C_x] = (1 + H(x+1, y))/2, so
//
//	(Aᵀθ)_y = off·Σθ + (in − off)(Σθ + (Hθ̃)_y)/2,  θ̃_{x+1} = θ_x, 0 elsewhere,
//	(A v)_x = off·Σv + (in − off)(Σv + (Hv)_{x+1})/2.
//
// It allocates dst when it is nil and is safe for concurrent use.
func (m *HR) MulVecTo(dst []float64, trans bool, v []float64) []float64 {
	return hrOp{k: m.K, out: m.out, in: m.in, off: m.off}.MulVecTo(dst, trans, v)
}

// work counts a product's multiply-adds: the transform's K' log₂ K'
// and a few passes of K'.
func (m *HR) work() float64 {
	return float64(m.out) * (float64(bits.Len(uint(m.out))) + 4)
}

// squared returns A∘A, whose entries are in² and off²: the same
// transform.
func (m *HR) squared() operator {
	return hrOp{k: m.K, out: m.out, in: m.in * m.in, off: m.off * m.off}
}

// hrOp is the K×K' operator of entries in on y ∈ C_x and off elsewhere:
// the Hadamard response's channel, or its entrywise square.
type hrOp struct {
	k, out  int
	in, off float64
}

func (o hrOp) MulVecTo(dst []float64, trans bool, v []float64) []float64 {
	n := o.k
	if trans {
		n = o.out
	}
	if dst == nil {
		dst = make([]float64, n)
	}
	if len(dst) != n || len(v) != o.k+o.out-n {
		panic("core: slice length mismatch")
	}
	buf := make([]float64, o.out)
	if trans {
		copy(buf[1:], v)
	} else {
		copy(buf, v)
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	fwht(buf)
	shift := 0
	if !trans {
		shift = 1
	}
	for i := range dst {
		dst[i] = o.off*sum + (o.in-o.off)*(sum+buf[i+shift])/2
	}
	return dst
}

// fwht applies the Sylvester Hadamard matrix of order len(a), a power
// of two, in place: (Ha)_i = Σ_y (−1)^{popcount(i ∧ y)} a_y, by
// log₂ len(a) passes of butterflies. Hand-rolled: gonum has no
// Walsh–Hadamard transform.
func fwht(a []float64) {
	for h := 1; h < len(a); h *= 2 {
		for i := 0; i < len(a); i += 2 * h {
			for j := i; j < i+h; j++ {
				a[j], a[j+h] = a[j]+a[j+h], a[j]-a[j+h]
			}
		}
	}
}

// shape says that a report is one of K' outputs.
func (m *HR) shape() ReportShape { return ReportShape{Outputs: m.out} }
