package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fwPlanar are the planar ε per km of FW Table 6.
var fwPlanar = []float64{0.190, 0.244, 0.310, 0.390, 0.493, 0.632, 0.835, 1.159, 1.762, 3.124}

func TestPlanarRows(t *testing.T) {
	for _, g := range [][2]int{{24, 16}, {7, 5}, {1, 6}, {2, 2}} {
		for _, eps := range []float64{fwPlanar[0], fwPlanar[9]} {
			m, err := NewPlanarGeometric(g[0], g[1], 0.5, eps)
			if err != nil {
				t.Fatal(err)
			}
			for x := range m.Inputs() {
				sum := 0.0
				for z := range m.Outputs() {
					sum += m.Prob(x, z)
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Errorf("%d×%d ε=%v: row %d sums to %.17g", g[0], g[1], eps, x, sum)
				}
			}
		}
	}
}

// TestPlanarBruteForce compares Prob with a direct sum over the lattice,
// clamping every lattice point, on a small grid.
func TestPlanarBruteForce(t *testing.T) {
	m, err := NewPlanarGeometric(4, 3, 0.5, 3.124)
	if err != nil {
		t.Fatal(err)
	}
	n := m.Radius()
	total := 0.0
	for i := -n; i <= n; i++ {
		for j := -n; j <= n; j++ {
			total += m.w(i, j)
		}
	}
	for x := range m.Inputs() {
		row := make([]float64, m.Outputs())
		r0, c0 := x/4, x%4
		for i := -n; i <= n; i++ {
			for j := -n; j <= n; j++ {
				r := min(max(r0+i, 0), 2)
				c := min(max(c0+j, 0), 3)
				row[r*4+c] += m.w(i, j) / total
			}
		}
		for z, want := range row {
			if got := m.Prob(x, z); math.Abs(got-want) > 1e-14*math.Max(want, 1e-3) {
				t.Errorf("P(%d|%d) = %.17g, brute force %.17g", z, x, got, want)
			}
		}
	}
}

// TestPlanarOperator checks the FFT products against the dense matrix on
// FW's 24×16 grid and on a 7×5 grid, for every ε of FW Table 6, with the
// edges by dot products and by FFT (spectralEdgeMin).
func TestPlanarOperator(t *testing.T) { bothEdgePaths(t, testPlanarOperator) }

// bothEdgePaths runs test with the bordered product's edges by dot
// products and by FFT, whatever the grid (spectralEdgeMin).
func bothEdgePaths(t *testing.T, test func(*testing.T)) {
	defer func(v int) { spectralEdgeMin = v }(spectralEdgeMin)
	for _, spectral := range []bool{false, true} {
		spectralEdgeMin = math.MaxInt
		if spectral {
			spectralEdgeMin = 0
		}
		t.Run(fmt.Sprintf("spectral=%v", spectral), test)
	}
}

func testPlanarOperator(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, g := range [][2]int{{24, 16}, {7, 5}, {3, 3}, {4, 11}, {2, 6}, {1, 9}} { // below 3×3: mulVecPadded
		for _, eps := range fwPlanar {
			m, err := NewPlanarGeometric(g[0], g[1], 0.5, eps)
			if err != nil {
				t.Fatal(err)
			}
			a := Matrix(m)
			k := m.Inputs()
			// A x takes x in [0, 1) (ratios of the estimators are
			// bounded the same way up to scale); Aᵀθ takes a distribution.
			v := make([]float64, k)
			theta := make([]float64, k)
			sum := 0.0
			for i := range v {
				v[i] = rng.Float64()
				theta[i] = rng.Float64()
				sum += theta[i]
			}
			for i := range theta {
				theta[i] /= sum
			}
			worst := 0.0
			for _, trans := range []bool{false, true} {
				if trans {
					v = theta
				}
				got := m.MulVecTo(nil, trans, v)
				var want mat.VecDense
				if trans {
					want.MulVec(a.T(), mat.NewVecDense(k, v))
				} else {
					want.MulVec(a, mat.NewVecDense(k, v))
				}
				for i := range got {
					d := math.Abs(got[i] - want.AtVec(i))
					worst = math.Max(worst, d)
					if d > 1e-12 {
						t.Fatalf("%d×%d ε=%v trans=%v: entry %d = %v, dense %v (|Δ| = %g)", g[0], g[1], eps, trans, i, got[i], want.AtVec(i), d)
					}
				}
			}
			t.Logf("%d×%d ε=%.3f: largest |Δ| %.2g", g[0], g[1], eps, worst)
		}
	}
}

// TestPlanarAudit checks ε-geo-indistinguishability per km read off the
// channel: the worst ratio per km is the nominal ε.
func TestPlanarAudit(t *testing.T) {
	for _, eps := range []float64{0.19, 1.159, 3.124} {
		m, err := NewPlanarGeometric(7, 5, 0.5, eps)
		if err != nil {
			t.Fatal(err)
		}
		if got := mustGeoInd(t, m, m.DistanceKm); math.Abs(got-eps) > 1e-9 {
			t.Errorf("ε = %v: audited ε per km = %.12f", eps, got)
		}
	}
}

func TestPlanarSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	m, err := NewPlanarGeometric(5, 4, 0.5, 1.762)
	if err != nil {
		t.Fatal(err)
	}
	checkSampler(t, "planar", m, rng, 200000, 0, 7, 19)
}

func TestPlanarErrors(t *testing.T) {
	for _, c := range []struct {
		cols, rows int
		cell, eps  float64
	}{{1, 1, 0.5, 1}, {0, 5, 0.5, 1}, {3, 3, 0, 1}, {3, 3, 0.5, 0}, {3, 3, 0.5, math.NaN()}, {3, 3, 0.001, 0.01}} {
		t.Run(fmt.Sprintf("%dx%d cell %v ε %v", c.cols, c.rows, c.cell, c.eps), func(t *testing.T) {
			if _, err := NewPlanarGeometric(c.cols, c.rows, c.cell, c.eps); err == nil {
				t.Errorf("NewPlanarGeometric(%v) succeeded", c)
			}
		})
	}
}

// TestLatticeRadiusBeyondLimit checks the radius a refused planar
// mechanism reports: the smallest N whose tail bound is below
// latticeTail, found by bisection past MaxLatticeRadius, and different
// for different ε (it always said 2001).
func TestLatticeRadiusBeyondLimit(t *testing.T) {
	bound := func(q float64, n int) float64 {
		return 8 * math.Pow(q, float64(n+1)) * (float64(n+1) - float64(n)*q) / ((1 - q) * (1 - q))
	}
	prev := 0
	for _, es := range []float64{0.02, 0.01, 1e-3, 1e-5} {
		q := math.Exp(-es)
		n := latticeRadius(q)
		if n <= MaxLatticeRadius || n <= prev {
			t.Errorf("ε·s = %g: radius %d (previous %d)", es, n, prev)
		}
		if b := bound(q, n); b >= latticeTail*(1+1e-9) {
			t.Errorf("ε·s = %g: radius %d leaves %g", es, n, b)
		}
		if b := bound(q, n-1); b < latticeTail*(1-1e-9) {
			t.Errorf("ε·s = %g: radius %d is not the smallest (N−1 leaves %g)", es, n, b)
		}
		prev = n
	}
	if _, err := NewPlanarGeometric(5, 5, 0.001, 1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("radius %d,", latticeRadius(math.Exp(-0.001)))) {
		t.Errorf("refusal: %v", err)
	}
}

// TestMinPlanarEpsCell checks the smallest ε·s the refusal message
// names: a lattice at it fits, one just below the exact threshold
// 0.023979 does not.
func TestMinPlanarEpsCell(t *testing.T) {
	if n := latticeRadius(math.Exp(-minPlanarEpsCell)); n > MaxLatticeRadius {
		t.Errorf("ε·s = %v needs radius %d", minPlanarEpsCell, n)
	}
	if n := latticeRadius(math.Exp(-0.02397)); n <= MaxLatticeRadius {
		t.Errorf("ε·s = 0.02397 fits with radius %d: the stated minimum is too high", n)
	}
}

// TestPlanarCancel checks that building a large planar mechanism stops
// when its context is cancelled.
func TestPlanarCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newPlanarGeometric(ctx, 600, 600, 0.5, 0.1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled build: %v", err)
	}
}

// TestPlanarProbRow holds probRow to Prob, bit for bit, for every input
// on grids with and without interior rows and columns.
func TestPlanarProbRow(t *testing.T) {
	for _, g := range [][2]int{{1, 2}, {1, 5}, {3, 3}, {7, 5}, {12, 9}} {
		m, err := NewPlanarGeometric(g[0], g[1], 0.5, 1.3)
		if err != nil {
			t.Fatal(err)
		}
		row := make([]float64, m.Outputs())
		for x := range m.Inputs() {
			m.probRow(x, row)
			for z, v := range row {
				if w := m.Prob(x, z); v != w {
					t.Fatalf("%d×%d: P(%d | %d) = %v by row, %v by Prob", g[0], g[1], z, x, v, w)
				}
			}
		}
	}
}
