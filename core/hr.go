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
