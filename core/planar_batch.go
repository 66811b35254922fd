package core

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/internal/linalg"
)

// planarBatch applies several planar geometric mechanisms of one grid
// (every side at least 3 cells, where MulVecTo takes the bordered path)
// together. Their interior convolutions live on one torus, so
// transforms are shared: the forward products θA_j of every mechanism
// take θ's transform once, and the adjoints Σ_j A_j u_j are summed in
// the frequency domain and transformed back once — 2J + 2 transforms
// for J mechanisms instead of 4J. On large grids the edges' half-line
// sums are convolutions along the rows and columns (edgeSpectra), whose
// line transforms are shared likewise; the corners are each
// mechanism's own. The mechanisms' parts run on every core.
type planarBatch struct {
	ms    []*PlanarGeometric
	a     [][]float64    // each mechanism's real torus array
	specs [][]complex128 // each mechanism's spectrum
	rims  [][]float64    // each mechanism's corners of an adjoint
	// On grids whose edges go by FFT (PlanarGeometric.spectral): the
	// line spectra of the input, or the adjoints' summed edge terms, and
	// each mechanism's transform, buffers and edge inputs.
	spectral bool
	lines    *lines
	edgeOut  []float64
	ffts     []*linalg.RealFFT
	accs     [][]complex128
	bufs     [][]float64
	edges    []edgeTerms
	// serial runs the mechanisms' parts one after another, for callers
	// that keep every core busy with batches of their own (cem_shares.go).
	serial bool
}

// each calls f(0), …, f(n−1), on every core unless b.serial.
func (b *planarBatch) each(n int, f func(i int)) {
	if !b.serial {
		linalg.Each(n, f)
		return
	}
	for i := range n {
		f(i)
	}
}

func newPlanarBatch(ms []*PlanarGeometric) *planarBatch {
	j := len(ms)
	b := &planarBatch{ms: ms, a: make([][]float64, j), specs: make([][]complex128, j), rims: make([][]float64, j),
		spectral: ms[0].spectral(true), ffts: make([]*linalg.RealFFT, j), accs: make([][]complex128, j), bufs: make([][]float64, j), edges: make([]edgeTerms, j)}
	c, _ := ms[0].edgeTables()
	if b.spectral {
		b.lines, b.edgeOut = newLines(ms[0].Rows, ms[0].Cols, c.W), make([]float64, ms[0].Inputs())
	}
	for j, m := range ms {
		m.edgeTables()
		b.a[j] = make([]float64, c.H*c.W)
		b.specs[j] = make([]complex128, c.H*(c.W/2+1))
		b.rims[j] = make([]float64, m.Inputs())
		if b.spectral {
			m.edgeSpectra()
			b.ffts[j], b.accs[j], b.bufs[j] = linalg.NewRealFFT(c.W), make([]complex128, c.W/2+1), make([]float64, c.W)
		}
	}
	return b
}

// batchable reports whether planar geometric mechanisms ms can share
// transforms in a planarBatch: at least two, of one grid on the bordered
// path.
func batchable(ms []*PlanarGeometric) bool {
	if len(ms) < 2 {
		return false
	}
	for _, m := range ms {
		if m.Rows < 3 || m.Cols < 3 || m.Rows != ms[0].Rows || m.Cols != ms[0].Cols {
			return false
		}
	}
	return true
}

// forward sets dst[j] = xA_j, the output distribution of every
// mechanism for the input distribution x (MulVecTo with trans), exactly
// as MulVecTo computes it.
func (b *planarBatch) forward(dst [][]float64, x []float64) {
	m0 := b.ms[0]
	c0, _ := m0.edgeTables()
	a := b.a[0]
	clear(a[:m0.Rows*c0.W]) // Forward reads these rows only
	in := m0.newBorder(true, x, nil)
	in.place(a, c0)
	var spec []complex128
	// θ's transform and its lines' are independent: one core each.
	b.each(2, func(i int) {
		switch {
		case i == 0:
			spec = c0.Forward(a, m0.Rows)
		case b.spectral:
			b.lines.transform(x)
		}
	})
	b.each(len(b.ms), func(j int) {
		m := b.ms[j]
		c, _ := m.edgeTables()
		s := b.specs[j]
		linalg.Mul(s[:len(c.Kernel)], spec, c.Kernel)
		c.Inverse(b.a[j], s, m.Rows)
		dst[j] = fill(dst[j], m.Inputs(), 0)
		bd := m.newBorder(true, x, dst[j])
		bd.read(b.a[j], c, 1/float64(c.H*c.W))
		if b.spectral {
			m.edgesForward(dst[j], b.lines, b.ffts[j], b.accs[j], b.bufs[j])
		} else {
			bd.edges()
		}
		bd.corners()
		floats.Scale(m.lambda, dst[j])
	})
	c0.Recycle(spec)
}

// adjointSum sets dst = Σ_j A_j u[j] (MulVecTo without trans, summed).
func (b *planarBatch) adjointSum(dst []float64, u [][]float64) {
	b.each(len(b.ms), func(j int) {
		m := b.ms[j]
		c, _ := m.edgeTables()
		a := b.a[j]
		clear(a[:m.Rows*c.W]) // Forward reads these rows only
		bd := m.newBorder(false, u[j], b.rims[j])
		bd.place(a, c)
		spec := c.Forward(a, m.Rows)
		s := b.specs[j]
		linalg.MulScaled(s[:len(c.Kernel)], spec, complex(m.lambda, 0), c.Kernel)
		c.Recycle(spec)
		clear(b.rims[j])
		if b.spectral {
			b.edges[j] = m.edgeInputs(b.edges[j], u[j], m.lambda, b.ffts[j], b.bufs[j])
		} else {
			bd.edges()
		}
		bd.corners()
		floats.Scale(m.lambda, b.rims[j])
	})
	m0 := b.ms[0]
	c0, _ := m0.edgeTables()
	sum := b.specs[0]
	for _, s := range b.specs[1:] {
		for i, v := range s {
			sum[i] += v
		}
	}
	// The interior's inverse transform and the edges' are independent:
	// one core each.
	b.each(2, func(i int) {
		switch {
		case i == 0:
			c0.Inverse(b.a[0], sum, m0.Rows)
		case b.spectral:
			b.lines.clear()
			for j, m := range b.ms {
				m.edgesAdjoint(b.lines, b.edges[j])
			}
			clear(b.edgeOut)
			b.lines.back(b.edgeOut)
		}
	})
	bd := m0.newBorder(false, nil, dst)
	bd.read(b.a[0], c0, 1/float64(c0.H*c0.W))
	if b.spectral {
		floats.Add(dst, b.edgeOut)
	}
	for _, r := range b.rims {
		floats.Add(dst, r)
	}
}

// planarTerms is the EM term of the users of the mechanisms of a
// planarBatch, each as operatorTerm's, with their transforms shared.
type planarTerms struct {
	b   *planarBatch
	q   [][]float64 // each mechanism's counts over the outputs
	n   float64     // all users, of every mechanism
	out [][]float64
	p   [][]float64 // output probabilities at the point of curve
	tmp []float64
}

// outputs sets dst[j] to mechanism j's output probabilities θA_j,
// floored as operatorTerm.outputs does.
func (t *planarTerms) outputs(dst [][]float64, theta []float64) {
	t.b.forward(dst, theta)
	floor := 1e-12 * floats.Sum(theta) / float64(len(theta))
	for _, d := range dst {
		for z, m := range d {
			d[z] = math.Max(m, floor)
		}
	}
}

func (t *planarTerms) add(theta, acc []float64) float64 {
	t.outputs(t.out, theta)
	ll := 0.0
	for j, q := range t.q {
		lj, out := 0.0, t.out[j]
		for z, c := range q {
			if c == 0 {
				out[z] = 0
				continue
			}
			lj += c * linalg.Log(out[z])
			out[z] = c / (t.n * out[z])
		}
		ll += lj / t.n
	}
	t.tmp = fill(t.tmp, len(theta), 0)
	t.b.adjointSum(t.tmp, t.out)
	floats.Add(acc, t.tmp)
	return ll
}

func (t *planarTerms) at(theta []float64) { t.outputs(t.p, theta) }

func (t *planarTerms) curve(v, acc []float64) {
	t.b.forward(t.out, v)
	for j, q := range t.q {
		out, p := t.out[j], t.p[j]
		for z, c := range q {
			out[z] *= c / (t.n * p[z] * p[z])
		}
	}
	t.tmp = fill(t.tmp, len(v), 0)
	t.b.adjointSum(t.tmp, t.out)
	floats.Add(acc, t.tmp)
}

// batchPlanar replaces the operator terms of planar geometric
// mechanisms that can share transforms by one planarTerms, in the place
// of the first.
func batchPlanar(ops []*operatorTerm) []term {
	terms := make([]term, len(ops))
	for i, t := range ops {
		terms[i] = t
	}
	return mergePlanar(terms, func(t term) operator { return t.(*operatorTerm).op },
		func(ms []*PlanarGeometric, at []int) term {
			pt := &planarTerms{b: newPlanarBatch(ms), out: make([][]float64, len(ms)), p: make([][]float64, len(ms))}
			for _, i := range at {
				pt.q, pt.n = append(pt.q, ops[i].q), ops[i].n
			}
			return pt
		})
}

// mergePlanar returns items with those whose operator (op) is a planar
// geometric mechanism replaced, when they can share transforms
// (batchable), by merge of their mechanisms and positions, in the place
// of the first.
func mergePlanar[T any](items []T, op func(T) operator, merge func(ms []*PlanarGeometric, at []int) T) []T {
	var ms []*PlanarGeometric
	var at []int
	for i, it := range items {
		if m, ok := op(it).(*PlanarGeometric); ok {
			ms, at = append(ms, m), append(at, i)
		}
	}
	if !batchable(ms) {
		return items
	}
	out := make([]T, 0, len(items)-len(ms)+1)
	for i, it := range items {
		if _, planar := op(it).(*PlanarGeometric); !planar {
			out = append(out, it)
		} else if i == at[0] {
			out = append(out, merge(ms, at))
		}
	}
	return out
}

// planarSum returns Σ_j w_j A_j for planar geometric mechanisms of one
// grid (batchable) as one operator. Inside the grid each A_j is the
// convolution with λ_j W_j, and each border output collects λ_j times a
// half-line or quadrant sum of W_j; all are linear in the weights, so
// the sum is the bordered product of MulVecTo with the tables
// Σ_j w_j λ_j near_j, rowTail_j and quad_j — two transforms an
// application whatever J.
func planarSum(ms []*PlanarGeometric, w []float64) operator {
	m0 := ms[0]
	s := &PlanarGeometric{Cols: m0.Cols, Rows: m0.Rows, CellKm: m0.CellKm, m: m0.m, lambda: 1,
		near: make([]float64, len(m0.near)), rowTail: make([]float64, len(m0.rowTail)), quad: make([]float64, len(m0.quad))}
	for j, m := range ms {
		c := w[j] * m.lambda
		floats.AddScaled(s.near, c, m.near)
		floats.AddScaled(s.rowTail, c, m.rowTail)
		floats.AddScaled(s.quad, c, m.quad)
	}
	return borderedOp{s}
}

// borderedOp is the bordered product of a PlanarGeometric's tables,
// which need not be a mechanism's.
type borderedOp struct{ p *PlanarGeometric }

// work estimates the multiply-adds of one product: two FFTs (worker).
func (o borderedOp) work() float64 { return 2 * o.p.fftWork() }

func (o borderedOp) MulVecTo(dst []float64, trans bool, x []float64) []float64 {
	return o.p.bordered(fill(dst, o.p.Inputs(), 0), trans, x)
}

// sumPlanar replaces the planar geometric mechanisms among ops that can
// share transforms (batchable) by their weighted sum as one operator
// (planarSum), in the place of the first, with weight 1.
func sumPlanar(ops []operator, w []float64) ([]operator, []float64) {
	type weighted struct {
		op operator
		w  float64
	}
	items := make([]weighted, len(ops))
	for i, op := range ops {
		items[i] = weighted{op, w[i]}
	}
	merged := mergePlanar(items, func(it weighted) operator { return it.op },
		func(ms []*PlanarGeometric, at []int) weighted {
			mw := make([]float64, len(at))
			for j, i := range at {
				mw[j] = w[i]
			}
			return weighted{planarSum(ms, mw), 1}
		})
	ops, w = ops[:0:0], w[:0:0]
	for _, it := range merged {
		ops, w = append(ops, it.op), append(w, it.w)
	}
	return ops, w
}

// batchOps returns one planarBatch of ops when they are planar geometric
// mechanisms that can share transforms (batchable), false otherwise.
func batchOps(ops []rowOperator) (*planarBatch, bool) {
	ms := make([]*PlanarGeometric, 0, len(ops))
	for _, o := range ops {
		m, ok := o.(*PlanarGeometric)
		if !ok {
			return nil, false
		}
		ms = append(ms, m)
	}
	if !batchable(ms) {
		return nil, false
	}
	return newPlanarBatch(ms), true
}
