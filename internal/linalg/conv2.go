package linalg

import (
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Conv2 convolves real h×w arrays, cyclically, with a fixed real kernel
// by 2-D FFT: gonum's real FFT (dsp/fourier.FFT) along the rows, which
// keeps w/2+1 coefficients, then complex FFTs down those columns. Rows
// known to be zero are not transformed, and only the rows asked for are
// transformed back. It is safe for concurrent use: each call makes its
// own transforms and buffers.
type Conv2 struct {
	H, W   int
	Kernel []complex128 // the kernel's spectrum, h × (w/2+1), row-major
	// specs and reals recycle the buffers of apply, whose allocation
	// per call drove the collector on every EM step of a city grid.
	specs, reals sync.Pool
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
// are zero.
func (c *Conv2) Forward(a []float64, rows int) []complex128 {
	half := c.W/2 + 1
	var spec []complex128
	if b, ok := c.specs.Get().(*[]complex128); ok {
		spec = *b
		clear(spec)
	} else {
		spec = make([]complex128, c.H*half)
	}
	rfft, cfft := fourier.NewFFT(c.W), fourier.NewCmplxFFT(c.H)
	for r := range rows {
		rfft.Coefficients(spec[r*half:(r+1)*half], a[r*c.W:(r+1)*c.W])
	}
	col := make([]complex128, c.H)
	for j := range half {
		for r := range c.H {
			col[r] = spec[r*half+j]
		}
		cfft.Coefficients(col, col)
		for r := range c.H {
			spec[r*half+j] = col[r]
		}
	}
	return spec
}

// Inverse writes the first rows rows of the unnormalised inverse
// transform of spec into a.
func (c *Conv2) Inverse(a []float64, spec []complex128, rows int) {
	half := c.W/2 + 1
	rfft, cfft := fourier.NewFFT(c.W), fourier.NewCmplxFFT(c.H)
	col := make([]complex128, c.H)
	for j := range half {
		for r := range c.H {
			col[r] = spec[r*half+j]
		}
		cfft.Sequence(col, col)
		for r := range rows {
			spec[r*half+j] = col[r]
		}
	}
	for r := range rows {
		rfft.Sequence(a[r*c.W:(r+1)*c.W], spec[r*half:(r+1)*half])
	}
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
