package core

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bitMech is what these tests need of a mechanism with bit-vector outputs.
type bitMech interface {
	BitChannel
	SampleBits(rng *rand.Rand, x int) Bits
	Likelihood(dst []float64, r Report) ([]float64, float64)
}

// allBits returns every K-bit vector, vector i having bit j = i>>j & 1.
func allBits(k int) []Bits {
	out := make([]Bits, 1<<k)
	for i := range out {
		b := make([]byte, k)
		for j := range b {
			b[j] = byte(i >> j & 1)
		}
		out[i] = NewBits(b)
	}
	return out
}

// bitProb returns P(v | x) as the product of independent bits.
func bitProb(m BitChannel, x int, v Bits) float64 {
	p := 1.0
	for j := range v.Len() {
		p *= bitP(m.BitProb(x, j), v.Bit(j))
	}
	return p
}

func bitMechs(t *testing.T) map[string]bitMech {
	t.Helper()
	r1, _ := NewRAPPOR(6, 1)
	r2, _ := NewRAPPOR(6, 10)
	u1, _ := NewURAP(6, 1, []int{0, 2, 3})
	u2, _ := NewURAP(6, 3, []int{5})
	o1, _ := NewOUE(6, 1)
	o2, _ := NewOUE(6, 4)
	return map[string]bitMech{"rappor ε=1": r1, "rappor ε=10": r2, "urap S={0,2,3}": u1, "urap S={5}": u2, "oue ε=1": o1, "oue ε=4": o2}
}

// TestBitLikelihood checks over all 2^K outputs that the likelihoods are
// the product of the bits' probabilities and that they sum to 1 per input.
func TestBitLikelihood(t *testing.T) {
	for name, m := range bitMechs(t) {
		sums := make([]float64, m.Inputs())
		for _, v := range allBits(m.Bits()) {
			col, scale := m.Likelihood(nil, BitsReport(v))
			for x := range col {
				got, want := col[x]*math.Exp(scale), bitProb(m, x, v)
				if math.Abs(got-want) > 1e-12*want {
					t.Fatalf("%s: P(%v|%d) = %v, want %v", name, v, x, got, want)
				}
				sums[x] += got
			}
		}
		for x, s := range sums {
			if math.Abs(s-1) > 1e-12 {
				t.Errorf("%s: P(·|%d) sums to %.17g", name, x, s)
			}
		}
	}
}

func TestBitSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const n = 200000
	mechs := bitMechs(t)
	for _, name := range slices.Sorted(maps.Keys(mechs)) {
		m := mechs[name]
		outs := allBits(m.Bits())
		index := make(map[Bits]int, len(outs))
		for i, v := range outs {
			index[v] = i
		}
		for _, x := range []int{0, 3, 5} {
			counts := make([]int, len(outs))
			probs := make([]float64, len(outs))
			for i, v := range outs {
				probs[i] = bitProb(m, x, v)
			}
			for range n {
				counts[index[m.SampleBits(rng, x)]]++
			}
			chiSquare(t, name, counts, probs)
		}
	}
}

func TestBitAudit(t *testing.T) {
	r, _ := NewRAPPOR(20, 0.7)
	if got := mustBitLDP(t, r, nil); math.Abs(got-0.7) > 1e-9 {
		t.Errorf("RAPPOR audited ε = %v, want 0.7", got)
	}
	// Brute force over all outputs agrees for a small K.
	r6, _ := NewRAPPOR(6, 1.3)
	if got, want := mustBitLDP(t, r6, nil), bruteBitLDP(r6, nil); math.Abs(got-want) > 1e-12 || math.Abs(got-1.3) > 1e-9 {
		t.Errorf("RAPPOR K=6: factorised ε %v, brute force %v, nominal 1.3", got, want)
	}
	u, _ := NewURAP(6, 2, []int{1, 4})
	zeros := []int{0, 2, 3, 5} // protected outputs: non-sensitive bits 0
	if got, want := mustBitLDP(t, u, zeros), bruteBitLDP(u, zeros); math.Abs(got-2) > 1e-9 || math.Abs(got-want) > 1e-12 {
		t.Errorf("uRAP audited ε on protected outputs = %v (brute force %v), want 2", got, want)
	}
	// The O(K) one-hot path agrees with the general O(K³) factorisation,
	// reached by hiding the channel's structure, on every output and on
	// the protected ones; and it audits 2²⁰ symbols at once.
	type plain struct{ BitChannel }
	for _, z := range [][]int{nil, zeros} {
		for _, c := range []BitChannel{u, r6} {
			if got, want := mustBitLDP(t, c, z), mustBitLDP(t, plain{c}, z); math.Abs(got-want) > 1e-12 {
				t.Errorf("%T zeros %v: one-hot %v, general %v", c, z, got, want)
			}
		}
	}
	// OUE (Wang et al. 2017, §4.3) is exactly ε-LDP: p(1−q)/((1−p)q) = e^ε.
	for _, eps := range []float64{0.5, 1.3, 6} {
		o, _ := NewOUE(6, eps)
		if got, want := mustBitLDP(t, o, nil), bruteBitLDP(o, nil); math.Abs(got-eps) > 1e-9 || math.Abs(got-want) > 1e-12 {
			t.Errorf("OUE ε %g: audited %v, brute force %v", eps, got, want)
		}
	}
	big, _ := NewRAPPOR(1<<20, 3)
	if got := mustBitLDP(t, big, nil); math.Abs(got-3) > 1e-12 {
		t.Errorf("RAPPOR on 2²⁰ symbols: %v", got)
	}
	// Every output with a non-sensitive bit set is possible under exactly
	// one input: the invertibility of ULDP Def. 2.
	for _, v := range allBits(6) {
		revealing := false
		for _, j := range zeros {
			revealing = revealing || v.Bit(j) == 1
		}
		if !revealing {
			continue
		}
		possible := 0
		for x := range 6 {
			if bitProb(u, x, v) > 0 {
				possible++
			}
		}
		if possible > 1 {
			t.Errorf("uRAP output %v is possible under %d inputs", v, possible)
		}
	}
	// The audit reads the same off the bit probabilities, and catches a
	// channel whose "revealing" bit is possible under every input.
	if au := mustAudit(t, u, Alphabet{Kind: KindCategorical, Size: 6}); au.Invertible != -1 || !au.Protected || math.Abs(au.LDP-2) > 1e-9 {
		t.Errorf("uRAP audit %+v", au)
	}
	if j := InvertibleBits(r6, []int{3}); j != 3 {
		t.Errorf("RAPPOR bit 3 taken as invertible (got %d)", j)
	}
}

// bruteBitLDP is WorstBitLDP by enumerating every output.
func bruteBitLDP(m BitChannel, zeros []int) float64 {
	worst := 0.0
	for _, v := range allBits(m.Bits()) {
		skip := false
		for _, j := range zeros {
			skip = skip || v.Bit(j) == 1
		}
		if skip {
			continue
		}
		for x := range m.Inputs() {
			for x2 := range m.Inputs() {
				p, q := bitProb(m, x, v), bitProb(m, x2, v)
				if p > 0 {
					worst = math.Max(worst, logRatio(math.Log(p), math.Log(q)))
				}
			}
		}
	}
	return worst
}

// bitP returns P(bit = b) for a bit that is 1 with probability p1.
func bitP(p1 float64, b int) float64 {
	if b == 1 {
		return p1
	}
	return 1 - p1
}
