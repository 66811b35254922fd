package core

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// krrGroups returns the groups of one or more k-RR mechanisms on K
// symbols with the given output counts.
func krrGroups(t *testing.T, k int, eps []float64, counts ...[]int) ([]Mechanism, *Groups) {
	t.Helper()
	mechs := make([]Mechanism, len(eps))
	g := newGroups(len(eps))
	index := map[Group]int{}
	for j, e := range eps {
		m, err := NewKRR(k, e)
		if err != nil {
			t.Fatal(err)
		}
		mechs[j] = m
		for z, c := range counts[j] {
			if c > 0 {
				g.add(index, j, SymbolReport(z), c)
			}
		}
	}
	return mechs, g
}

func near(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func TestGIBUKnownVectors(t *testing.T) {
	mechs, g := krrGroups(t, 5, []float64{1}, []int{400, 300, 200, 80, 20})
	est, err := GIBU(context.Background(), mechs, g, nil, EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.6384366801, 0.3333333333, 0.0282299866, 0, 0}
	if !near(est.Theta, want, 1e-6) || !est.Converged {
		t.Errorf("IBU = %v (%d steps, converged %v), want %v", est.Theta, est.Iterations, est.Converged, want)
	}
	t.Logf("one group: %d steps, error %g", est.Iterations, maxDiff(est.Theta, want))
	mechs, g = krrGroups(t, 5, []float64{0.5, 2}, []int{100, 90, 80, 70, 60}, []int{300, 100, 50, 30, 20})
	est, err = GIBU(context.Background(), mechs, g, nil, EMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = []float64{0.8128156686, 0.1772576351, 0.0099266964, 0, 0}
	if !near(est.Theta, want, 1e-6) || !est.Converged {
		t.Errorf("GIBU = %v (%d steps), want %v", est.Theta, est.Iterations, want)
	}
	t.Logf("two groups: %d steps, error %g", est.Iterations, maxDiff(est.Theta, want))
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestGIBUOperatorForm: FW's operator form (FFT products) gives the same
// estimate as the likelihood columns on a mixture of planar geometric and
// k-RR users.
func TestGIBUOperatorForm(t *testing.T) {
	p1, _ := NewPlanarGeometric(9, 7, 0.5, 2)
	p2, _ := NewPlanarGeometric(9, 7, 0.5, 4)
	krr, _ := NewKRR(63, 3)
	mechs := []Mechanism{p1, p2, krr}
	truth := randomDist(rand.New(rand.NewPCG(8, 8)), 63, 0.5)
	g, err := SimulateGroups(bg, rand.New(rand.NewPCG(9, 9)), mechs, []int{300, 300, 200}, truth)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := newModel(mechs, g, nil, columnBudget)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := newModel(mechs, g, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ops.(*mixture); !ok {
		t.Fatalf("budget 0 built %T", ops)
	}
	// 150 accelerated steps: the paths may part where SQUAREM's acceptance
	// test falls within rounding, but stay close.
	a, err := runEM(bg, cols, EMOptions{MaxIter: 150})
	if err != nil {
		t.Fatal(err)
	}
	b, err := runEM(bg, ops, EMOptions{MaxIter: 150})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(a.Theta, b.Theta); d > 1e-6 || math.Abs(a.LogLik-b.LogLik) > 1e-10 {
		t.Errorf("operator form differs from columns by %g (L %v vs %v)", d, b.LogLik, a.LogLik)
	}
	// One step agrees to rounding.
	x := randomDist(rand.New(rand.NewPCG(1, 3)), 63, 0)
	na, nb := make([]float64, 63), make([]float64, 63)
	la, lb := cols.step(x, na), ops.step(x, nb)
	if d := maxDiff(na, nb); d > 1e-13 || math.Abs(la-lb) > 1e-13 {
		t.Errorf("one step: Δθ %g, ΔL %g", d, la-lb)
	}
}
