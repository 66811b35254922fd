package linalg

import (
	"sync"
)

// Conv2 convolves real h×w arrays, cyclically, with a fixed real kernel
// by 2-D FFT (fftPlan): real transforms along the rows, two rows to a
// complex transform, keeping w/2+1 coefficients, then complex transforms
// down those columns, all columns at once. Rows
// known to be zero are not transformed, and only the rows asked for are
// transformed back. It is safe for concurrent use: each call makes its
// own transforms and buffers.
type Conv2 struct {
	H, W   int
	Kernel []complex128 // the kernel's spectrum, h × (w/2+1), row-major
	// specs and reals recycle the buffers of apply, whose allocation
	// per call drove the collector on every EM step of a city grid.
	specs, reals, rows sync.Pool
}

// Buffer returns a zeroed H×W real array for Apply; Done gives it back.
func (c *Conv2) Buffer() []float64 {
	if b, ok := c.reals.Get().(*[]float64); ok {
		clear(*b)
		return *b
	}
	return make([]float64, c.H*c.W)
}

func (c *Conv2) Done(a []float64) { c.reals.Put(&a) }

// Recycle gives back a spectrum that Forward returned, once its caller
// has no more use for it.
func (c *Conv2) Recycle(spec []complex128) { c.specs.Put(&spec) }

// NewConv2 returns the convolution by kernel k, given as a function of the
// offset (i, j) for |i|, |j| ≤ radius, on an h×w torus; h and w must
// exceed 2·radius so that offsets do not overlap.
func NewConv2(h, w, radius int, k func(i, j int) float64) *Conv2 {
	c := &Conv2{H: h, W: w}
	a := make([]float64, h*w)
	for i := -radius; i <= radius; i++ {
		for j := -radius; j <= radius; j++ {
			a[Mod(i, h)*w+Mod(j, w)] = k(i, j)
		}
	}
	c.Kernel = c.Forward(a, h)
	return c
}

// Mod returns i modulo n in [0, n).
func Mod(i, n int) int { return ((i % n) + n) % n }

// Apply replaces a (row-major h×w) by its cyclic convolution with the
// kernel. Only rows below in may be non-zero in a, and only rows below
// out of the result are written back.
func (c *Conv2) Apply(a []float64, in, out int) {
	spec := c.Forward(a, in)
	for i, s := range c.Kernel {
		spec[i] *= s
	}
	c.Inverse(a, spec, out)
	c.specs.Put(&spec)
	scale := 1 / float64(c.H*c.W)
	for i := range a[:out*c.W] {
		a[i] *= scale
	}
}

// Forward returns the h × (w/2+1) spectrum of a, whose rows from rows on
// are zero: each pair of rows is one complex transform (z = a_r + i·a_r+1,
// A_r = (Z_k + Z̄_−k)/2, A_r+1 = (Z_k − Z̄_−k)/2i), then the columns are
// transformed together (fftPlan's batch).
func (c *Conv2) Forward(a []float64, rows int) []complex128 {
	half := c.W/2 + 1
	spec := c.spectrum()
	clear(spec[rows*half:]) // the rows below are written in full
	pairs := (rows + 1) / 2
	z, work := c.rowScratch(pairs)
	// z holds the pairs' sequences interleaved, z[t·pairs + p], so that
	// one batched transform takes them all (every stage's loop then
	// runs over the pairs, contiguous).
	for p := range pairs {
		r := 2 * p
		x0 := a[r*c.W : (r+1)*c.W]
		if r+1 < rows {
			x1 := a[(r+1)*c.W : (r+2)*c.W]
			for t, v := range x0 {
				z[t*pairs+p] = complex(v, x1[t])
			}
		} else {
			for t, v := range x0 {
				z[t*pairs+p] = complex(v, 0)
			}
		}
	}
	planFFT(c.W).transform(z, work, pairs, false)
	for p := range pairs {
		r := 2 * p
		s0 := spec[r*half : (r+1)*half]
		for k := range s0 {
			zk, zn := z[k*pairs+p], conj(z[((c.W-k)%c.W)*pairs+p])
			s0[k] = (zk + zn) * 0.5
			if r+1 < rows {
				spec[(r+1)*half+k] = (zk - zn) * complex(0, -0.5)
			}
		}
	}
	c.putRowScratch(z, work)
	c.columns(spec, false)
	return spec
}

// columns transforms every column of the h × (w/2+1) spec, all at once
// (fftPlan's batch).
func (c *Conv2) columns(spec []complex128, inverse bool) {
	w := c.spectrum()
	planFFT(c.H).transform(spec, w, c.W/2+1, inverse)
	c.specs.Put(&w)
}

// Inverse writes the first rows rows of the unnormalised inverse
// transform of spec into a, overwriting spec: the columns together,
// then each pair of rows as one complex transform of Z = A_r + i·A_r+1
// (each half-spectrum extended by its Hermitian symmetry).
func (c *Conv2) Inverse(a []float64, spec []complex128, rows int) {
	half := c.W/2 + 1
	c.columns(spec, true)
	pairs := (rows + 1) / 2
	z, work := c.rowScratch(pairs)
	for p := range pairs {
		r := 2 * p
		x0 := hermitian(spec[r*half:(r+1)*half], c.W)
		var x1 []complex128
		if r+1 < rows {
			x1 = hermitian(spec[(r+1)*half:(r+2)*half], c.W)
		}
		for k := range c.W {
			kk, cj := k, false
			if k >= half {
				kk, cj = c.W-k, true
			}
			v0 := x0[kk]
			var v1 complex128
			if x1 != nil {
				v1 = x1[kk]
			}
			if cj {
				v0, v1 = conj(v0), conj(v1)
			}
			z[k*pairs+p] = v0 + complex(-imag(v1), real(v1))
		}
	}
	planFFT(c.W).transform(z, work, pairs, true)
	for p := range pairs {
		r := 2 * p
		out0 := a[r*c.W : (r+1)*c.W]
		for t := range out0 {
			out0[t] = real(z[t*pairs+p])
		}
		if r+1 < rows {
			out1 := a[(r+1)*c.W : (r+2)*c.W]
			for t := range out1 {
				out1[t] = imag(z[t*pairs+p])
			}
		}
	}
	c.putRowScratch(z, work)
}

// hermitian returns the half-spectrum h of a real row of length w with
// the imaginary parts that the symmetry makes zero (at 0, and at w/2
// when w is even) set to zero, as a real inverse transform ignores them.
func hermitian(h []complex128, w int) []complex128 {
	h[0] = complex(real(h[0]), 0)
	if w%2 == 0 {
		h[w/2] = complex(real(h[w/2]), 0)
	}
	return h
}

// spectrum returns an h × (w/2+1) array from the pool, not cleared.
func (c *Conv2) spectrum() []complex128 {
	if b, ok := c.specs.Get().(*[]complex128); ok {
		return *b
	}
	return make([]complex128, c.H*(c.W/2+1))
}

// rowScratch returns two complex arrays of W·pairs from the pool: the
// row pairs' sequences, interleaved, and the transform's work.
func (c *Conv2) rowScratch(pairs int) (z, work []complex128) {
	n := c.W * pairs
	if b, ok := c.rows.Get().(*[]complex128); ok && cap(*b) >= 2*n {
		return (*b)[:n], (*b)[n : 2*n]
	}
	b := make([]complex128, 2*c.W*((c.H+1)/2))
	return b[:n], b[n : 2*n]
}

func (c *Conv2) putRowScratch(z, _ []complex128) {
	b := z[:cap(z)]
	c.rows.Put(&b)
}

// Smooth returns the smallest n' ≥ n whose prime factors are 2, 3 and 5,
// lengths that FFTPACK transforms fastest.
func Smooth(n int) int {
	for ; ; n++ {
		m := n
		for _, p := range []int{2, 3, 5} {
			for m%p == 0 {
				m /= p
			}
		}
		if m == 1 {
			return n
		}
	}
}
