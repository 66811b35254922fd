package linalg

import (
	"math/rand/v2"
	"testing"
)

// TestFFTKernels checks that the AVX butterflies give the same bits as
// the Go loops, forward and inverse, on transforms of lengths with
// radix-4 stages and batches odd and even (the odd term of each run
// goes through the Go loop).
func TestFFTKernels(t *testing.T) {
	if !fastFFT {
		t.Skip("no AVX2 here")
	}
	rng := rand.New(rand.NewPCG(4, 4))
	defer func(f bool) { fastFFT = f }(fastFFT)
	for _, n := range []int{4, 12, 16, 48, 64, 100, 192, 400} {
		for _, batch := range []int{1, 2, 7, 96} {
			x := make([]complex128, n*batch)
			for i := range x {
				x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
			}
			for _, inverse := range []bool{false, true} {
				p := planFFT(n)
				fast, slow := append([]complex128(nil), x...), append([]complex128(nil), x...)
				fastFFT = true
				p.transform(fast, make([]complex128, len(x)), batch, inverse)
				fastFFT = false
				p.transform(slow, make([]complex128, len(x)), batch, inverse)
				for i := range fast {
					if fast[i] != slow[i] {
						t.Fatalf("n = %d, batch %d, inverse %v: term %d is %v by AVX, %v by Go", n, batch, inverse, i, fast[i], slow[i])
					}
				}
			}
		}
	}
}

// TestMulAdd checks MulAdd, MulAdd2, Mul and MulScaled against their Go
// loops bit for bit, on odd and even lengths.
func TestMulAdd(t *testing.T) {
	if !fastFFT {
		t.Skip("no AVX2 here")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	vec := func(n int) []complex128 {
		v := make([]complex128, n)
		for i := range v {
			v[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		return v
	}
	for _, n := range []int{1, 2, 7, 201} {
		acc, a, x, b, y := vec(n), vec(n), vec(n), vec(n), vec(n)
		got, want := append([]complex128(nil), acc...), append([]complex128(nil), acc...)
		MulAdd(got, a, x)
		for k := range want {
			want[k] += a[k] * x[k]
		}
		got2, want2 := append([]complex128(nil), acc...), append([]complex128(nil), acc...)
		MulAdd2(got2, a, x, b, y)
		for k := range want2 {
			want2[k] += a[k]*x[k] + b[k]*y[k]
		}
		for k := range got {
			if got[k] != want[k] || got2[k] != want2[k] {
				t.Fatalf("n = %d, term %d: MulAdd %v, want %v; MulAdd2 %v, want %v", n, k, got[k], want[k], got2[k], want2[k])
			}
		}
		c := complex(rng.NormFloat64(), 0) // a real scale, as the planar adjoint's λ
		got3, got4 := make([]complex128, n), make([]complex128, n)
		Mul(got3, a, x)
		MulScaled(got4, a, c, x)
		for k := range got3 {
			if w := a[k] * x[k]; got3[k] != w {
				t.Fatalf("n = %d, term %d: Mul %v, want %v", n, k, got3[k], w)
			}
			if w := a[k] * c * x[k]; got4[k] != w {
				t.Fatalf("n = %d, term %d: MulScaled %v, want %v", n, k, got4[k], w)
			}
		}
	}
}
