package linalg

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestInvertSPD holds InvertSPD to gonum's inverse by LU on random
// symmetric positive definite matrices whose sizes do and do not fill
// whole blocks: ‖A·A⁻¹ − I‖ and the difference from mat.Inverse are at
// rounding level (condition numbers below 1e4 here).
func TestInvertSPD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{1, 5, spdBlock, spdBlock + 1, 2*spdBlock + 37, 3 * spdBlock} {
		b := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				b.Set(i, j, rng.NormFloat64())
			}
		}
		var s mat.Dense
		s.Mul(b.T(), b)
		for i := range n {
			s.Set(i, i, s.At(i, i)+float64(n))
		}
		a := make([]float64, n*n)
		for i := range n {
			for j := range i + 1 {
				a[i*n+j] = s.At(i, j) // the upper triangle is never read
			}
			for j := i + 1; j < n; j++ {
				a[i*n+j] = math.NaN()
			}
		}
		if err := InvertSPD(context.Background(), a, n, nil); err != nil {
			t.Fatalf("n = %d: %v", n, err)
		}
		var want mat.Dense
		if err := want.Inverse(&s); err != nil {
			t.Fatal(err)
		}
		got := mat.NewDense(n, n, a)
		if d := mat.Norm(got, math.Inf(1)); math.IsNaN(d) {
			t.Fatalf("n = %d: NaN in the inverse", n)
		}
		var diff mat.Dense
		diff.Sub(got, &want)
		if e := mat.Norm(&diff, math.Inf(1)) / mat.Norm(&want, math.Inf(1)); e > 1e-13 {
			t.Errorf("n = %d: relative difference from LU inverse %.2g", n, e)
		}
		for i := range n {
			for j := range n {
				if a[i*n+j] != a[j*n+i] {
					t.Fatalf("n = %d: not symmetric at (%d, %d)", n, i, j)
				}
			}
		}
	}
}

// TestInvertSPDFails checks the error for an indefinite matrix and for a
// cancelled context, which ends the sweep after its first block.
func TestInvertSPDFails(t *testing.T) {
	n := 2*spdBlock + 1
	a := make([]float64, n*n)
	for i := range n {
		a[i*n+i] = 1
	}
	a[(n-1)*n+n-1] = -1
	if err := InvertSPD(context.Background(), a, n, nil); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("indefinite: %v", err)
	}
	for i := range n {
		a[i*n+i] = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := InvertSPD(ctx, a, n, func(float64) { calls++; cancel() })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("cancelled: %v after %d blocks, want context.Canceled after 1", err, calls)
	}
}
