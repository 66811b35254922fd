package core

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// subsets returns the bit masks of the ω-subsets of k symbols.
func subsets(k, w int) []int {
	var out []int
	for v := range 1 << k {
		if bits.OnesCount(uint(v)) == w {
			out = append(out, v)
		}
	}
	return out
}

func maskBits(v, k int) Bits {
	b := make([]byte, k)
	for j := range k {
		b[j] = byte(v >> j & 1)
	}
	return NewBits(b)
}

// TestSSChannel: over every ω-subset, P(S | x) is e^ε/Z on the subsets
// holding x and 1/Z elsewhere, each row sums to 1, the audit's ε is the
// largest ratio found, sampling draws the subsets with these
// probabilities (χ², falseFailure), and the attacker's success is the
// enumerated Σ_S max_x π_x P(S | x).
func TestSSChannel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	for _, tc := range []struct {
		k     int
		eps   float64
		omega int
	}{{6, 0.5, 3}, {6, 1, 2}, {7, 3, 1}, {9, 0.1, 5}, {2, 1, 1}} {
		m, err := NewSS(tc.k, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		if m.Omega != tc.omega {
			t.Errorf("k %d ε %v: ω %d, want ⌈K/(e^ε+1)⌉ = %d", tc.k, tc.eps, m.Omega, tc.omega)
		}
		subs := subsets(tc.k, m.Omega)
		z := math.Exp(logChoose(tc.k-1, m.Omega-1))*math.Exp(tc.eps) + math.Exp(logChoose(tc.k-1, m.Omega))
		worst := 0.0
		probs := make([][]float64, tc.k)
		for x := range tc.k {
			sum := 0.0
			for _, v := range subs {
				col, scale := m.Likelihood(nil, BitsReport(maskBits(v, tc.k)))
				p := col[x] * math.Exp(scale)
				want := 1 / z
				if v>>x&1 == 1 {
					want = math.Exp(tc.eps) / z
				}
				if math.Abs(p-want) > 1e-13 {
					t.Fatalf("k %d ε %v: P(%b | %d) = %v, want %v", tc.k, tc.eps, v, x, p, want)
				}
				probs[x] = append(probs[x], p)
				sum += p
				for x2 := range tc.k {
					worst = math.Max(worst, math.Log(col[x]/col[x2]))
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("k %d ε %v: row %d sums to %v", tc.k, tc.eps, x, sum)
			}
		}
		au, err := AuditMechanism(context.Background(), m, Alphabet{Kind: KindCategorical, Size: tc.k})
		if err != nil || math.Abs(au.LDP-worst) > 1e-12 || math.Abs(worst-tc.eps) > 1e-12 {
			t.Errorf("k %d ε %v: audit %v, enumeration %v (%v)", tc.k, tc.eps, au.LDP, worst, err)
		}
		index := map[Bits]int{}
		for i, v := range subs {
			index[maskBits(v, tc.k)] = i
		}
		x := 1 % tc.k
		counts := make([]int, len(subs))
		for range 50000 {
			counts[index[m.SampleBits(rng, x)]]++
		}
		chiSquare(t, "subset selection", counts, probs[x])
		for _, zeros := range []float64{0, 0.4} {
			pi, _ := normalPrior(randomPrior(rng, tc.k, zeros), tc.k)
			want := 0.0
			for i := range subs {
				top := 0.0
				for x := range tc.k {
					top = math.Max(top, pi[x]*probs[x][i])
				}
				want += top
			}
			got, err := Expose(context.Background(), m, Alphabet{Kind: KindCategorical, Size: tc.k}, pi, nil, nil)
			if err != nil || !closeTo(got.Success, want, 1e-12) {
				t.Errorf("k %d ε %v: success %v, enumeration %v (%v)", tc.k, tc.eps, got.Success, want, err)
			}
		}
	}
	m, _ := NewSS(6, 1)
	if _, err := ParseReport(m, "111000"); err == nil {
		t.Error("a report of 3 bits set accepted for ω = 2")
	}
	if r, err := ParseReport(m, "010010"); err != nil || r.Bits.Ones() != 2 {
		t.Errorf("a subset refused: %v", err)
	}
}

// TestSetForm: the set form of OUE's, RAPPOR's and SS's reports is their
// likelihood column, with and without bits set.
func TestSetForm(t *testing.T) {
	oue, _ := NewOUE(7, 1.5)
	rap, _ := NewRAPPOR(7, 2)
	ss, _ := NewSS(7, 1)
	for _, m := range []setReports{oue, rap, ss} {
		for _, v := range []int{0, 1, 0b101, 0b1100001, 0b1111111} {
			if _, ok := m.(*SS); ok && bits.OnesCount(uint(v)) != ss.Omega {
				continue
			}
			b := maskBits(v, 7)
			col, scale := m.Likelihood(nil, BitsReport(b))
			low, s := m.setForm(b.Ones())
			for x, c := range col {
				want := low
				if v>>x&1 == 1 {
					want = 1
				}
				if got := want * math.Exp(s); math.Abs(got-c*math.Exp(scale)) > 1e-15 {
					t.Errorf("%T %b: set form %v at %d, likelihood %v", m, v, got, x, c*math.Exp(scale))
				}
			}
		}
	}
}
