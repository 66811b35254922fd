package core

import (
	"github.com/privmap/privmap/internal/linalg"
)

// spectralEdgeMin is the rows·cols·max(rows, cols) multiply-adds of one
// edge of the bordered product above which its half-line sums are
// computed as convolutions by FFT (edgeSpectra) rather than dot products
// (border.edge), when the lines' transforms are shared by a batch of
// mechanisms; a mechanism alone, which pays for them itself, switches
// at spectralEdgeMin·spectralAlone (NYC's 96×94 grid stays with dot
// products, which cost less there, 200×200 does not). Tests lower it to
// check one path against the other.
var spectralEdgeMin = 1 << 16

const spectralAlone = 64

// spectral reports whether m's edges take the FFT path, in a batch
// (shared) or alone.
func (m *PlanarGeometric) spectral(shared bool) bool {
	work := m.Rows * m.Cols * max(m.Rows, m.Cols)
	if shared {
		return work >= spectralEdgeMin
	}
	return work/spectralAlone >= spectralEdgeMin
}

// edgeSpectra returns, made on first use, the spectrum along a line of
// the interior torus' side n of every tail row t_b, b = 0..m: an edge
// output p collects from the inputs of line i across the edge Σ_q
// t_b(i)(p − q) x(i, q), a cyclic convolution of length n ≥ 2m + 1 (no
// wrap-around reaches the grid), and t_b is even in its offset.
func (m *PlanarGeometric) edgeSpectra() [][]complex128 {
	m.specOnce.Do(func() {
		c, tail := m.edgeTables()
		n, mm, span := c.W, m.m, 2*m.m+1
		fft := linalg.NewRealFFT(n)
		a := make([]float64, n)
		m.edgeSpec = make([][]complex128, mm+1)
		for b := range mm + 1 {
			clear(a)
			for d := -mm; d <= mm; d++ {
				a[linalg.Mod(d, n)] = tail[b*span+d+mm]
			}
			m.edgeSpec[b] = fft.Coefficients(nil, a)
		}
	})
	return m.edgeSpec
}

// lines holds the length-n spectra of every row and every column of a
// grid array, and the transform and buffers that make them.
type lines struct {
	rows, cols, n int
	r, c          [][]complex128
	fft           *linalg.RealFFT
}

func newLines(rows, cols, n int) *lines {
	l := &lines{rows: rows, cols: cols, n: n, r: make([][]complex128, rows), c: make([][]complex128, cols),
		fft: linalg.NewRealFFT(n)}
	for i := range l.r {
		l.r[i] = make([]complex128, n/2+1)
	}
	for j := range l.c {
		l.c[j] = make([]complex128, n/2+1)
	}
	return l
}

// transform sets the spectra of x's rows and columns, zero-padded to n,
// the rows' together and the columns' together.
func (l *lines) transform(x []float64) {
	l.fft.CoefficientsBatch(l.r, func(i int, buf []float64) { copy(buf, x[i*l.cols:(i+1)*l.cols]) })
	l.fft.CoefficientsBatch(l.c, func(j int, buf []float64) {
		for i := range l.rows {
			buf[i] = x[i*l.cols+j]
		}
	})
}

// back adds the inverse transforms of the spectra, unnormalised by n,
// to dst: each row's over that row and each column's down that column.
func (l *lines) back(dst []float64) {
	scale := 1 / float64(l.n)
	l.fft.SequenceBatch(l.r, func(i int, buf []float64) {
		for q := range l.cols {
			dst[i*l.cols+q] += buf[q] * scale
		}
	})
	l.fft.SequenceBatch(l.c, func(j int, buf []float64) {
		for i := range l.rows {
			dst[i*l.cols+j] += buf[i] * scale
		}
	})
}

// clear zeroes the spectra.
func (l *lines) clear() {
	for _, s := range l.r {
		clear(s)
	}
	for _, s := range l.c {
		clear(s)
	}
}

// edgesForward adds to dst the four edges' outputs of xA (unnormalised,
// as border.edge with trans) from x's line spectra, by fft (one per
// goroutine), acc and buf (of the spectrum's and the line's length): the top edge's
// spectrum is Σ_i T_{m−i} X_i over the rows i, the bottom's Σ_i
// T_{m−(rows−1−i)} X_i, and the side edges' likewise over the columns.
func (m *PlanarGeometric) edgesForward(dst []float64, x *lines, fft *linalg.RealFFT, acc []complex128, buf []float64) {
	spec := m.edgeSpectra()
	rows, cols, mm := m.Rows, m.Cols, m.m
	scale := 1 / float64(x.n)
	sum := func(ls [][]complex128, bound func(i int) int) {
		clear(acc)
		for i, s := range ls {
			linalg.MulAdd(acc[:len(s)], spec[bound(i)], s)
		}
		fft.Sequence(buf, acc)
	}
	sum(x.r, func(i int) int { return mm - i })
	for p := 1; p < cols-1; p++ {
		dst[p] += buf[p] * scale
	}
	sum(x.r, func(i int) int { return mm - (rows - 1 - i) })
	for p := 1; p < cols-1; p++ {
		dst[(rows-1)*cols+p] += buf[p] * scale
	}
	sum(x.c, func(j int) int { return mm - j })
	for p := 1; p < rows-1; p++ {
		dst[p*cols] += buf[p] * scale
	}
	sum(x.c, func(j int) int { return mm - (cols - 1 - j) })
	for p := 1; p < rows-1; p++ {
		dst[p*cols+cols-1] += buf[p] * scale
	}
}

// edgeTerms are the spectra of one application's four edge vectors (the
// input on each edge's outputs, corners excluded), scaled by a weight.
type edgeTerms struct {
	top, bottom, left, right []complex128
}

// edgeInputs sets e to the spectra of w times x on the four edges, for
// edgesAdjoint, reusing e's arrays when it has them, and returns it.
func (m *PlanarGeometric) edgeInputs(e edgeTerms, x []float64, w float64, fft *linalg.RealFFT, buf []float64) edgeTerms {
	rows, cols := m.Rows, m.Cols
	line := func(dst []complex128, n int, at func(p int) int) []complex128 {
		clear(buf)
		for p := 1; p < n-1; p++ {
			buf[p] = w * x[at(p)]
		}
		return fft.Coefficients(dst, buf)
	}
	e.top = line(e.top, cols, func(p int) int { return p })
	e.bottom = line(e.bottom, cols, func(p int) int { return (rows-1)*cols + p })
	e.left = line(e.left, rows, func(p int) int { return p * cols })
	e.right = line(e.right, rows, func(p int) int { return p*cols + cols - 1 })
	return e
}

// edgesAdjoint adds the edges' part of A x to the line spectra l, from
// the spectra e of x on the edges (edgeInputs): row i gains
// T_{m−i}·top + T_{m−(rows−1−i)}·bottom, column j likewise from the side
// edges; l.back then turns them into A x's part (border.edge without
// trans).
func (m *PlanarGeometric) edgesAdjoint(l *lines, e edgeTerms) {
	spec := m.edgeSpectra()
	rows, cols, mm := m.Rows, m.Cols, m.m
	for i, s := range l.r {
		linalg.MulAdd2(s, spec[mm-i], e.top, spec[mm-(rows-1-i)], e.bottom)
	}
	for j, s := range l.c {
		linalg.MulAdd2(s, spec[mm-j], e.left, spec[mm-(cols-1-j)], e.right)
	}
}
