package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// linearDist returns d(x, z) = |x − z| on K symbols.
func linearDist(k int) *mat.Dense {
	d := mat.NewDense(k, k, nil)
	d.Apply(func(x, z int, _ float64) float64 { return math.Abs(float64(x - z)) }, d)
	return d
}

// simplexShokri solves Shokri's LP independently with gonum's dense
// simplex in standard form: variables A_xz, t_y = t⁺−t⁻, slacks.
func simplexShokri(t *testing.T, d *mat.Dense, prior []float64, q float64) float64 {
	t.Helper()
	k, _ := d.Dims()
	nv := k*k + 2*k + k*k + 1
	m := k*k + 1 + k
	a := mat.NewDense(m, nv, nil)
	b := make([]float64, m)
	c := make([]float64, nv)
	row := 0
	for y := range k {
		for z := range k {
			a.Set(row, k*k+y, 1)
			a.Set(row, k*k+k+y, -1)
			for x := range k {
				a.Set(row, x*k+y, -prior[x]*d.At(x, z))
			}
			a.Set(row, k*k+2*k+y*k+z, 1)
			row++
		}
	}
	for x := range k {
		for z := range k {
			a.Set(row, x*k+z, prior[x]*d.At(x, z))
		}
	}
	a.Set(row, nv-1, 1)
	b[row] = q
	row++
	for x := range k {
		for z := range k {
			a.Set(row, x*k+z, 1)
		}
		b[row] = 1
		row++
	}
	for y := range k {
		c[k*k+y], c[k*k+k+y] = -1, 1
	}
	opt, _, err := lp.Simplex(c, a, b, 1e-10, nil)
	if err != nil {
		t.Fatalf("gonum simplex: %v", err)
	}
	return -opt
}

func TestShokriMatchesLP(t *testing.T) {
	for _, tc := range []struct {
		k     int
		q     float64
		prior []float64
	}{
		{5, 0.5, nil},
		{5, 1.0, []float64{0.1, 0.4, 0.2, 0.2, 0.1}},
		{8, 1.5, nil},
		{10, 2.5, nil},
		{10, 0.3, nil},
	} {
		t.Run(fmt.Sprintf("K=%d Q=%v", tc.k, tc.q), func(t *testing.T) {
			d := linearDist(tc.k)
			prior := tc.prior
			if prior == nil {
				prior = fill(nil, tc.k, 1/float64(tc.k))
			}
			start := time.Now()
			m, err := SolveShokri(context.Background(), d, tc.prior, tc.q, ShokriOptions{Tol: 1e-7})
			if err != nil {
				t.Fatalf("K=%d Q=%v: %v", tc.k, tc.q, err)
			}
			want := simplexShokri(t, d, prior, tc.q)
			t.Logf("K=%d Q=%v: objective %.9f (bound %.9f), LP %.9f, %d iterations, %v", tc.k, tc.q, m.Objective, m.Bound, want, m.Iterations, time.Since(start))
			if math.Abs(m.Objective-want) > 1e-6*want || m.Bound < want-1e-9*want {
				t.Errorf("K=%d Q=%v: objective %v, bound %v; LP optimum %v", tc.k, tc.q, m.Objective, m.Bound, want)
			}
			// The channel is feasible and its quality loss meets Q with
			// equality (the bound binds for these Q).
			loss := 0.0
			for x := range tc.k {
				sum := 0.0
				for z := range tc.k {
					p := m.Prob(x, z)
					if p < 0 {
						t.Fatalf("negative probability %v", p)
					}
					sum += p
					loss += prior[x] * p * d.At(x, z)
				}
				if math.Abs(sum-1) > 1e-12 {
					t.Errorf("row %d sums to %v", x, sum)
				}
			}
			// Equality holds up to the certified optimality gap.
			if math.Abs(loss-tc.q) > 1e-6*tc.q {
				t.Errorf("K=%d Q=%v: quality loss %v", tc.k, tc.q, loss)
			}
		})
	}
}

// TestShokriNotBinding checks a quality bound above what the adversary's
// best error needs: the LP optimum is reached with the loss at most Q.
func TestShokriNotBinding(t *testing.T) {
	d := linearDist(6)
	m, err := SolveShokri(context.Background(), d, nil, 10, ShokriOptions{Tol: 1e-7})
	if err != nil {
		t.Fatal(err)
	}
	want := simplexShokri(t, d, fill(nil, 6, 1.0/6), 10)
	loss := 0.0
	for x := range 6 {
		for z := range 6 {
			loss += m.Prob(x, z) * d.At(x, z) / 6
		}
	}
	if math.Abs(m.Objective-want) > 1e-6*want || loss > 10+1e-12 {
		t.Errorf("objective %v (LP %v), loss %v ≤ 10", m.Objective, want, loss)
	}
}

// TestShokriBlind: at or above the prior's least expected distance P the
// quality bound cannot bind, and the optimum P — the LP's — comes
// certified without an iteration from the channel that reports one
// symbol; just below P the solver iterates to the LP's optimum.
func TestShokriBlind(t *testing.T) {
	d := linearDist(6)
	prior := []float64{0.3, 0.1, 0.1, 0.2, 0.2, 0.1}
	// P = min_z Σ_x π_x |x − z|: z = 2 and z = 3 both give 1.6, and the
	// lower, 2, is reported.
	const p = 1.6
	for _, q := range []float64{p, 2, 10} {
		m, err := SolveShokri(context.Background(), d, prior, q, ShokriOptions{Tol: 1e-7})
		if err != nil {
			t.Fatal(err)
		}
		want := simplexShokri(t, d, prior, q)
		if m.Iterations != 0 || m.Objective != m.Bound || math.Abs(m.Objective-p) > 1e-12 || math.Abs(want-p) > 1e-7 {
			t.Errorf("Q=%v: %d iterations, objective %v, bound %v; want %v certified at once (LP %v)", q, m.Iterations, m.Objective, m.Bound, p, want)
		}
		for x := range 6 {
			if m.Prob(x, 2) != 1 {
				t.Errorf("Q=%v: row %d reports 2 with probability %v", q, x, m.Prob(x, 2))
			}
		}
	}
	q := p - 0.05
	m, err := SolveShokri(context.Background(), d, prior, q, ShokriOptions{Tol: 1e-7})
	if err != nil {
		t.Fatal(err)
	}
	if want := simplexShokri(t, d, prior, q); m.Iterations == 0 || math.Abs(m.Objective-want) > 1e-6*want {
		t.Errorf("Q=%v below P: %d iterations, objective %v; LP %v", q, m.Iterations, m.Objective, want)
	}
	// FW's linear alphabet of 100 symbols at Q = 28, P = 25.
	m, err = SolveShokri(context.Background(), linearDist(100), nil, 28, ShokriOptions{})
	if err != nil || m.Iterations != 0 || math.Abs(m.Objective-25) > 1e-12 {
		t.Errorf("K=100 Q=28: %v, %d iterations, objective %v; want 25 at once", err, m.Iterations, m.Objective)
	}
}

func TestShokriSampleAndStudy(t *testing.T) {
	m, err := NewMechanism(MechanismSpec{ID: "s", Kind: KindShokri, QualityLoss: 1.5}, Alphabet{Kind: KindLinear, Size: 8})
	if err != nil {
		t.Fatal(err)
	}
	s := m.(*Shokri)
	checkSampler(t, "shokri", s, rand.New(rand.NewPCG(8, 8)), 100000, 0, 4)
	if _, err := NewMechanism(MechanismSpec{ID: "s", Kind: KindShokri, QualityLoss: 1}, Alphabet{Kind: KindCategorical, Size: 4}); err == nil {
		t.Error("shokri on a categorical alphabet succeeded")
	}
	if _, err := SolveShokri(context.Background(), linearDist(4), nil, -1, ShokriOptions{}); err == nil {
		t.Error("negative quality loss accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SolveShokri(ctx, linearDist(30), nil, 3, ShokriOptions{}); err == nil {
		t.Error("cancelled solve succeeded")
	}
}

// TestShokriQualityBound checks that a binding quality constraint makes
// Q the certified optimum: the adversary guessing the observation errs by
// the quality loss, so the solver stops once a channel reaches Q, long
// before a dual bound would (on this 12×8 grid thousands of iterations).
func TestShokriQualityBound(t *testing.T) {
	a := Alphabet{Kind: KindGrid, Cols: 12, Rows: 8, CellKm: 0.5}
	m, err := newShokri(context.Background(), a, 0.9, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bound != 0.9 || math.Abs(m.Objective-0.9) > 1e-6*0.9 || m.Iterations > 500 {
		t.Errorf("objective %v, bound %v after %d iterations; want 0.9 within 1e−6, bound 0.9, few iterations", m.Objective, m.Bound, m.Iterations)
	}
	// The privacy of the channel is its objective: Σ_y min_z Σ_x π_x A_xy d(x, z).
	k := a.Len()
	priv := 0.0
	for y := range k {
		best := math.Inf(1)
		for z := range k {
			e := 0.0
			for x := range k {
				d, _, _ := a.Distance(x, z)
				e += m.Prob(x, y) * d / float64(k)
			}
			best = math.Min(best, e)
		}
		priv += best
	}
	if math.Abs(priv-m.Objective) > 1e-9 {
		t.Errorf("privacy of the channel %v, objective %v", priv, m.Objective)
	}
}
