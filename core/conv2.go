package core

import (
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// conv2 convolves real h×w arrays, cyclically, with a fixed real kernel
// by 2-D FFT: gonum's real FFT (dsp/fourier.FFT) along the rows, which
// keeps w/2+1 coefficients, then complex FFTs down those columns. Rows
// known to be zero are not transformed, and only the rows asked for are
// transformed back. It is safe for concurrent use: each call makes its
// own transforms and buffers.
type conv2 struct {
	h, w  int
	kspec []complex128 // the kernel's spectrum, h × (w/2+1), row-major
	// specs and reals recycle the buffers of apply, whose allocation
	// per call drove the collector on every EM step of a city grid.
	specs, reals sync.Pool
}

// buffer returns a zeroed h×w real array for apply; done gives it back.
func (c *conv2) buffer() []float64 {
	if b, ok := c.reals.Get().(*[]float64); ok {
		clear(*b)
		return *b
	}
	return make([]float64, c.h*c.w)
}

func (c *conv2) done(a []float64) { c.reals.Put(&a) }

// newConv2 returns the convolution by kernel k, given as a function of the
// offset (i, j) for |i|, |j| ≤ radius, on an h×w torus; h and w must
// exceed 2·radius so that offsets do not overlap.
func newConv2(h, w, radius int, k func(i, j int) float64) *conv2 {
	c := &conv2{h: h, w: w}
	a := make([]float64, h*w)
	for i := -radius; i <= radius; i++ {
		for j := -radius; j <= radius; j++ {
			a[mod(i, h)*w+mod(j, w)] = k(i, j)
		}
	}
	c.kspec = c.forward(a, h)
	return c
}

func mod(i, n int) int { return ((i % n) + n) % n }

// apply replaces a (row-major h×w) by its cyclic convolution with the
// kernel. Only rows below in may be non-zero in a, and only rows below
// out of the result are written back.
func (c *conv2) apply(a []float64, in, out int) {
	spec := c.forward(a, in)
	for i, s := range c.kspec {
		spec[i] *= s
	}
	c.inverse(a, spec, out)
	c.specs.Put(&spec)
	scale := 1 / float64(c.h*c.w)
	for i := range a[:out*c.w] {
		a[i] *= scale
	}
}

// forward returns the h × (w/2+1) spectrum of a, whose rows from rows on
// are zero.
func (c *conv2) forward(a []float64, rows int) []complex128 {
	half := c.w/2 + 1
	var spec []complex128
	if b, ok := c.specs.Get().(*[]complex128); ok {
		spec = *b
		clear(spec)
	} else {
		spec = make([]complex128, c.h*half)
	}
	rfft, cfft := fourier.NewFFT(c.w), fourier.NewCmplxFFT(c.h)
	for r := range rows {
		rfft.Coefficients(spec[r*half:(r+1)*half], a[r*c.w:(r+1)*c.w])
	}
	col := make([]complex128, c.h)
	for j := range half {
		for r := range c.h {
			col[r] = spec[r*half+j]
		}
		cfft.Coefficients(col, col)
		for r := range c.h {
			spec[r*half+j] = col[r]
		}
	}
	return spec
}

// inverse writes the first rows rows of the unnormalised inverse
// transform of spec into a.
func (c *conv2) inverse(a []float64, spec []complex128, rows int) {
	half := c.w/2 + 1
	rfft, cfft := fourier.NewFFT(c.w), fourier.NewCmplxFFT(c.h)
	col := make([]complex128, c.h)
	for j := range half {
		for r := range c.h {
			col[r] = spec[r*half+j]
		}
		cfft.Sequence(col, col)
		for r := range rows {
			spec[r*half+j] = col[r]
		}
	}
	for r := range rows {
		rfft.Sequence(a[r*c.w:(r+1)*c.w], spec[r*half:(r+1)*half])
	}
}

// smooth returns the smallest n' ≥ n whose prime factors are 2, 3 and 5,
// lengths that FFTPACK transforms fastest.
func smooth(n int) int {
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
