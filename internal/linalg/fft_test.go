package linalg

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// TestFFTPlan holds fftPlan to the DFT's definition on every length up
// to 200 whose factors are 2, 3 and 5 (every radix and their mixtures),
// forward and inverse, alone and in an interleaved batch of three: equal
// to 1e−13 of the largest term.
func TestFFTPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for n := 1; n <= 200; n++ {
		if Smooth(n) != n {
			continue
		}
		p := planFFT(n)
		for _, batch := range []int{1, 3} {
			for _, inverse := range []bool{false, true} {
				x := make([]complex128, n*batch)
				for i := range x {
					x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
				}
				want := make([]complex128, len(x))
				sign := -1.0
				if inverse {
					sign = 1
				}
				for b := range batch {
					for k := range n {
						var s complex128
						for j := range n {
							s += x[j*batch+b] * cmplx.Rect(1, sign*2*math.Pi*float64(j*k%n)/float64(n))
						}
						want[k*batch+b] = s
					}
				}
				work := make([]complex128, len(x))
				p.transform(x, work, batch, inverse)
				for i := range x {
					if cmplx.Abs(x[i]-want[i]) > 1e-13*float64(n) {
						t.Fatalf("n = %d, batch %d, inverse %v: term %d is %v, DFT %v", n, batch, inverse, i, x[i], want[i])
					}
				}
			}
		}
	}
}

// TestConv2 holds Conv2.Apply to the cyclic convolution's definition on
// tori of even and odd sides, with rows known to be zero and only some
// rows written back.
func TestConv2(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, hw := range [][2]int{{8, 8}, {9, 15}, {12, 10}, {30, 27}, {25, 32}} {
		h, w := hw[0], hw[1]
		radius := (min(h, w) - 1) / 2
		ker := map[[2]int]float64{}
		c := NewConv2(h, w, radius, func(i, j int) float64 {
			v := rng.Float64()
			ker[[2]int{i, j}] = v
			return v
		})
		in, out := h/2+1, h-1
		a := make([]float64, h*w)
		for i := range a[:in*w] {
			a[i] = rng.NormFloat64()
		}
		want := make([]float64, h*w)
		for r := range h {
			for s := range w {
				for off, v := range ker {
					rr, ss := Mod(r-off[0], h), Mod(s-off[1], w)
					want[r*w+s] += v * a[rr*w+ss]
				}
			}
		}
		c.Apply(a, in, out)
		for i := range a[:out*w] {
			if math.Abs(a[i]-want[i]) > 1e-12 {
				t.Fatalf("%d×%d: entry %d is %v, convolution %v", h, w, i, a[i], want[i])
			}
		}
	}
}

// TestRealFFT holds RealFFT to gonum's dsp/fourier.FFT, coefficients and
// sequences, on even and odd lengths.
func TestRealFFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{1, 2, 3, 4, 6, 9, 10, 16, 45, 96, 192, 200} {
		f, g := NewRealFFT(n), fourier.NewFFT(n)
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got, want := f.Coefficients(nil, x), g.Coefficients(nil, x)
		for k := range want {
			if cmplx.Abs(got[k]-want[k]) > 1e-13*float64(n) {
				t.Fatalf("n = %d: coefficient %d is %v, gonum's %v", n, k, got[k], want[k])
			}
		}
		back, wantBack := f.Sequence(nil, want), g.Sequence(nil, want)
		for i := range wantBack {
			if math.Abs(back[i]-wantBack[i]) > 1e-12*float64(n) {
				t.Fatalf("n = %d: term %d is %v, gonum's %v", n, i, back[i], wantBack[i])
			}
		}
	}
}

// BenchmarkConv2 times one forward and one inverse transform on the
// planar mechanisms' 192×192 torus of New York's grid (96 rows in, 96
// out).
func BenchmarkConv2(b *testing.B) { benchConv2(b, 192) }

// BenchmarkConv2City is BenchmarkConv2 on the 200×200 city grid's
// 400×400 torus (200 rows in, 200 out).
func BenchmarkConv2City(b *testing.B) { benchConv2(b, 400) }

// benchConv2 times a forward and an inverse transform on the n×n torus
// of an n/2 × n/2 grid.
func benchConv2(b *testing.B, n int) {
	rows := n / 2
	c := NewConv2(n, n, rows-1, func(i, j int) float64 { return math.Exp(-math.Hypot(float64(i), float64(j))) })
	a := c.Buffer()
	for i := range a[:rows*n] {
		a[i] = float64(i % 7)
	}
	for b.Loop() {
		s := c.Forward(a, rows)
		c.Inverse(a, s, rows)
		c.Recycle(s)
	}
}

// TestRealFFTBatch checks CoefficientsBatch and SequenceBatch against
// Coefficients and Sequence one sequence at a time, bit for bit, on
// even and odd lengths.
func TestRealFFTBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{9, 16, 30, 400} {
		f, g := NewRealFFT(n), NewRealFFT(n)
		xs := make([][]float64, 5)
		for i := range xs {
			xs[i] = make([]float64, n)
			for t := range xs[i][:n-i] { // a zero tail, as the lines are padded
				xs[i][t] = rng.NormFloat64()
			}
		}
		batch := make([][]complex128, len(xs))
		for i := range batch {
			batch[i] = make([]complex128, n/2+1)
		}
		f.CoefficientsBatch(batch, func(i int, x []float64) { copy(x, xs[i]) })
		for i, x := range xs {
			one := g.Coefficients(nil, x)
			for k := range one {
				if batch[i][k] != one[k] {
					t.Fatalf("n = %d, sequence %d, coefficient %d: %v in a batch, %v alone", n, i, k, batch[i][k], one[k])
				}
			}
		}
		f.SequenceBatch(batch, func(i int, x []float64) {
			one := g.Sequence(nil, batch[i])
			for k := range one {
				if x[k] != one[k] {
					t.Fatalf("n = %d, sequence %d, term %d: %v in a batch, %v alone", n, i, k, x[k], one[k])
				}
			}
		})
	}
}
