package core

import (
	"context"
	"math"
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
