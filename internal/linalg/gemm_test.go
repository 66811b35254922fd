package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestGemm holds Gemm to gonum's blas64.Gemm on every combination of
// transposes, on shapes that fill whole tiles and blocks and shapes that
// leave edges in each dimension, for β = 0, 1 and 0.5 and strides wider
// than the matrices: equal to 1e−13 relative (the sums are taken in
// another order).
func TestGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	random := func(r, c, stride int) blas64.General {
		g := blas64.General{Rows: r, Cols: c, Stride: stride, Data: make([]float64, max(0, (r-1)*stride+c))}
		for i := range g.Data {
			g.Data[i] = rng.NormFloat64()
		}
		return g
	}
	shapes := [][3]int{{1, 1, 1}, {6, 8, 1}, {6, 8, 300}, {7, 9, 5}, {97, 130, 257}, {gemmMC, gemmNR * 3, gemmKC}, {200, gemmNC + 13, 40}, {13, 3, 600}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, ta := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tb := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				for _, beta := range []float64{0, 1, 0.5} {
					ar, ac := m, k
					if ta == blas.Trans {
						ar, ac = k, m
					}
					br, bc := k, n
					if tb == blas.Trans {
						br, bc = n, k
					}
					a, b := random(ar, ac, ac+3), random(br, bc, bc+1)
					c := random(m, n, n+2)
					want := blas64.General{Rows: m, Cols: n, Stride: c.Stride, Data: append([]float64(nil), c.Data...)}
					blas64.Gemm(ta, tb, -0.7, a, b, beta, want)
					Gemm(ta, tb, -0.7, a, b, beta, c)
					worst := 0.0
					for i := range m {
						for j := range n {
							g, w := c.Data[i*c.Stride+j], want.Data[i*c.Stride+j]
							worst = math.Max(worst, math.Abs(g-w)/(1+math.Abs(w)))
						}
						for j := n; j < c.Stride && i*c.Stride+j < len(c.Data); j++ {
							if c.Data[i*c.Stride+j] != want.Data[i*c.Stride+j] {
								t.Fatalf("%v: wrote past the row's end", sh)
							}
						}
					}
					if worst > 1e-13*math.Sqrt(float64(k)) {
						t.Errorf("m, n, k = %v, %c%c, β = %v: worst relative difference %.2g", sh, ta, tb, beta, worst)
					}
				}
			}
		}
	}
}

// BenchmarkGemm multiplies 1,024×1,024 matrices with Gemm and with
// gonum's blas64.Gemm (on every core; Gemm on one): GF/s reported.
func BenchmarkGemm(b *testing.B) {
	const n = 1024
	rng := rand.New(rand.NewPCG(1, 1))
	mk := func() blas64.General {
		g := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		for i := range g.Data {
			g.Data[i] = rng.Float64()
		}
		return g
	}
	x, y, z := mk(), mk(), mk()
	for _, tc := range []struct {
		name string
		f    func(blas.Transpose, blas.Transpose, float64, blas64.General, blas64.General, float64, blas64.General)
	}{{"linalg", Gemm}, {"gonum", blas64.Gemm}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				tc.f(blas.NoTrans, blas.NoTrans, 1, x, y, 0, z)
			}
			b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GF/s")
		})
	}
}
