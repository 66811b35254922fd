package core

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sylvester returns the n×n Hadamard matrix of Sylvester's recursion,
// H_{2n} = [H H; H −H], n a power of two.
func sylvester(n int) [][]int {
	h := [][]int{{1}}
	for len(h) < n {
		m := len(h)
		next := make([][]int, 2*m)
		for i := range next {
			next[i] = make([]int, 2*m)
			for j := range next[i] {
				v := h[i%m][j%m]
				if i >= m && j >= m {
					v = -v
				}
				next[i][j] = v
			}
		}
		h = next
	}
	return h
}

// TestHRChannel checks the Hadamard response against its definition
// (Acharya, Sun and Zhang 2019, §3): K' the smallest power of two above
// K, symbol x's half the outputs where row x+1 of Sylvester's matrix is
// +1, probability 2e^ε/(K'(e^ε+1)) there and 2/(K'(e^ε+1)) elsewhere;
// and its audit's ε exactly ε.
func TestHRChannel(t *testing.T) {
	for _, tc := range []struct {
		k    int
		eps  float64
		outs int
	}{{2, 1, 4}, {3, 0.5, 4}, {4, 2, 8}, {7, 1, 8}, {8, 4, 16}, {100, 0.3, 128}} {
		m, err := NewHR(tc.k, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		if m.Outputs() != tc.outs {
			t.Fatalf("K %d: %d outputs, want %d", tc.k, m.Outputs(), tc.outs)
		}
		h := sylvester(tc.outs)
		e := math.Exp(tc.eps)
		for x := range tc.k {
			for y := range tc.outs {
				want := 2 / (float64(tc.outs) * (e + 1))
				if h[x+1][y] == 1 {
					want *= e
				}
				if got := m.Prob(x, y); math.Abs(got-want) > 1e-15 {
					t.Fatalf("K %d ε %g: P(%d | %d) = %v, want %v", tc.k, tc.eps, y, x, got, want)
				}
			}
		}
		if got := WorstLDP(m, nil); math.Abs(got-tc.eps) > 1e-9 {
			t.Errorf("K %d: audited ε %v, want %v", tc.k, got, tc.eps)
		}
	}
	// On a grid the audit reads its geo-indistinguishability and, its
	// outputs not being cells, no quality loss.
	grid := Alphabet{Kind: KindGrid, Cols: 5, Rows: 3, CellKm: 0.5}
	m, err := NewMechanism(MechanismSpec{ID: "h", Kind: KindHR, Epsilon: 2}, grid)
	if err != nil {
		t.Fatal(err)
	}
	au, err := AuditMechanism(context.Background(), m, grid)
	if err != nil || math.Abs(au.LDP-2) > 1e-9 || !math.IsNaN(au.QualityMean) || !(au.GeoInd > 0) {
		t.Errorf("hr on a 5×3 grid: %+v, %v", au, err)
	}
	if _, err := NewHR(MaxSymbols, 1); err == nil {
		t.Error("2²⁴ symbols, 2²⁵ outputs: accepted")
	}
}

// TestHROperator: the transform's products equal the channel matrix's,
// both ways, and its square's equal the entrywise squares'.
func TestHROperator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, k := range []int{2, 3, 7, 8, 100} {
		m, _ := NewHR(k, 1.3)
		a := Matrix(m)
		theta := make([]float64, k)
		v := make([]float64, m.Outputs())
		for i := range theta {
			theta[i] = rng.NormFloat64()
		}
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		var want mat.VecDense
		want.MulVec(a.T(), mat.NewVecDense(k, theta))
		if got := m.MulVecTo(nil, true, theta); !near(got, want.RawVector().Data, 1e-14) {
			t.Errorf("k %d: θA by transform %v, by matrix %v", k, got, want.RawVector().Data)
		}
		want.Reset()
		want.MulVec(a, mat.NewVecDense(len(v), v))
		if got := m.MulVecTo(nil, false, v); !near(got, want.RawVector().Data, 1e-14) {
			t.Errorf("k %d: Av by transform %v, by matrix %v", k, got, want.RawVector().Data)
		}
		var sq mat.Dense
		sq.MulElem(a, a)
		want.Reset()
		want.MulVec(&sq, mat.NewVecDense(len(v), v))
		if got := m.squared().MulVecTo(nil, false, v); !near(got, want.RawVector().Data, 1e-14) {
			t.Errorf("k %d: (A∘A)v by transform %v, by matrix %v", k, got, want.RawVector().Data)
		}
	}
}
