package core

import (
	"gonum.org/v1/gonum/dsp/fourier"
)

// conv2 convolves h×w arrays, cyclically, with a fixed kernel by 2-D FFT
// (gonum's dsp/fourier along rows, then columns). It is safe for
// concurrent use: each call makes its own transforms and buffers.
type conv2 struct {
	h, w  int
	kspec []complex128 // the kernel's spectrum, row-major h×w
}

// newConv2 returns the convolution by kernel k, given as a function of the
// offset (i, j) for |i|, |j| ≤ radius, on an h×w torus; h and w must
// exceed 2·radius so that offsets do not overlap.
func newConv2(h, w, radius int, k func(i, j int) float64) *conv2 {
	c := &conv2{h: h, w: w}
	a := make([]complex128, h*w)
	for i := -radius; i <= radius; i++ {
		for j := -radius; j <= radius; j++ {
			a[mod(i, h)*w+mod(j, w)] = complex(k(i, j), 0)
		}
	}
	c.transform(a, false)
	c.kspec = a
	return c
}

func mod(i, n int) int { return ((i % n) + n) % n }

// apply replaces a (row-major h×w) by its cyclic convolution with the
// kernel.
func (c *conv2) apply(a []complex128) {
	c.transform(a, false)
	for i, s := range c.kspec {
		a[i] *= s
	}
	c.transform(a, true)
	n := complex(float64(c.h*c.w), 0)
	for i := range a {
		a[i] /= n
	}
}

// transform applies the unnormalised 2-D DFT, or its inverse, in place.
func (c *conv2) transform(a []complex128, inverse bool) {
	rows, cols := fourier.NewCmplxFFT(c.w), fourier.NewCmplxFFT(c.h)
	for r := range c.h {
		row := a[r*c.w : (r+1)*c.w]
		if inverse {
			rows.Sequence(row, row)
		} else {
			rows.Coefficients(row, row)
		}
	}
	col := make([]complex128, c.h)
	for j := range c.w {
		for r := range c.h {
			col[r] = a[r*c.w+j]
		}
		if inverse {
			cols.Sequence(col, col)
		} else {
			cols.Coefficients(col, col)
		}
		for r := range c.h {
			a[r*c.w+j] = col[r]
		}
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
