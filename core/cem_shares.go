package core

import (
	"context"
	"errors"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/privmap/privmap/internal/linalg"
)

// cemChunks is the number of contiguous ranges of inputs an operator
// share's passes are cut into, each on a core of its own with its own
// work space; the ranges' sums are added in order, so the result does
// not depend on the number of cores.
const cemChunks = 16

// opGroup applies the channels of several mechanisms of one input
// alphabet: dst[j] = xA_j (the output law of inputs drawn from x), and
// dst = Σ_j A_j u_j. planarBatch is one, sharing transforms.
type opGroup interface {
	forward(dst [][]float64, x []float64)
	adjointSum(dst []float64, u [][]float64)
}

// opList is an opGroup of operators taken one at a time.
type opList []operator

func (l opList) forward(dst [][]float64, x []float64) {
	for j, o := range l {
		dst[j] = o.MulVecTo(dst[j], true, x)
	}
}

func (l opList) adjointSum(dst []float64, u [][]float64) {
	clear(dst)
	var tmp []float64
	for j, o := range l {
		tmp = o.MulVecTo(tmp, false, u[j])
		floats.Add(dst, tmp)
	}
}

// opShare is the users of mechanisms applied as operators whose rows
// are formed on demand (rowOperator: planar geometric ones of one
// grid), see cem_bias.go.
type opShare struct {
	k         int
	ms        []rowOperator
	index     map[int]int // mechanism → position in ms
	counts    [][]float64
	q, t1, t2 [][]float64
	main      opGroup // the passes' own groups aside, made once (shared)
}

// newOpShare returns the share of the planar mechanisms ms (mechanisms
// at of the study), nil when there are none.
func newOpShare(ms []rowOperator, at []int, k int) *opShare {
	if len(ms) == 0 {
		return nil
	}
	o := &opShare{k: k, ms: ms, index: map[int]int{}, counts: make([][]float64, len(ms))}
	for i, j := range at {
		o.index[j] = i
		o.counts[i] = make([]float64, k)
	}
	return o
}

func (o *opShare) has(j int) (int, bool) {
	if o == nil {
		return 0, false
	}
	i, ok := o.index[j]
	return i, ok
}

// group returns a new opGroup of the share's mechanisms, with its own
// work space; a serial one runs on the calling goroutine only.
func (o *opShare) group(serial bool) opGroup {
	if b, ok := batchOps(o.ms); ok {
		b.serial = serial
		return b
	}
	l := make(opList, len(o.ms))
	for i, m := range o.ms {
		l[i] = m
	}
	return l
}

// shared returns the share's opGroup for single products (the output
// law, Ŝ's product, the sums), made on first use.
func (o *opShare) shared() opGroup {
	if o.main == nil {
		o.main = o.group(false)
	}
	return o.main
}

func (o *opShare) vectors() [][]float64 {
	v := make([][]float64, len(o.ms))
	for i := range v {
		v[i] = make([]float64, o.k)
	}
	return v
}

func (o *opShare) at(p []float64) error {
	o.q = o.vectors()
	o.shared().forward(o.q, p)
	for i, c := range o.counts {
		for z, cz := range c {
			if cz > 0 && !(o.q[i][z] > 0) {
				return errors.New("core: cem: the estimate gives a report probability 0")
			}
		}
	}
	return nil
}

// weights returns w_j,z = c_z/(N q_z²) of each mechanism.
func (o *opShare) weights(n float64) [][]float64 {
	w := o.vectors()
	for i, c := range o.counts {
		for z, cz := range c {
			if cz > 0 {
				w[i][z] = cz / (n * o.q[i][z] * o.q[i][z])
			}
		}
	}
	return w
}

// chunks runs f on cemChunks contiguous ranges of the inputs, each with
// an opGroup of its own, on every core, and stops at ctx's end.
// Every 64 inputs, tick is told the fraction of inputs done.
func (o *opShare) chunks(ctx context.Context, tick func(float64), f func(c int, g opGroup, x func(yield func(int) bool))) error {
	var done atomic.Int64
	linalg.Each(cemChunks, func(c int) {
		if ctx.Err() != nil {
			return
		}
		lo, hi := c*o.k/cemChunks, (c+1)*o.k/cemChunks
		f(c, o.group(true), func(yield func(int) bool) {
			for x := lo; x < hi && ctx.Err() == nil; x++ {
				if !yield(x) {
					return
				}
				if d := done.Add(1); d%64 == 0 {
					tick(float64(d) / float64(o.k))
				}
			}
		})
	})
	return ctx.Err()
}

// gram adds column x of (1/N) Σ_j A_j diag(w_j) A_jᵀ, Σ_j A_j (w_j ⊙
// P_j(·|x)), to row x of s, for every x (the lower triangle is read).
func (o *opShare) gram(ctx context.Context, s []float64, n float64, tick func(float64)) error {
	w := o.weights(n)
	k := o.k
	return o.chunks(ctx, tick, func(_ int, g opGroup, inputs func(func(int) bool)) {
		u, col := o.vectors(), make([]float64, k)
		for x := range inputs {
			for i, m := range o.ms {
				m.probRow(x, u[i])
				floats.Mul(u[i], w[i])
			}
			g.adjointSum(col, u)
			floats.Add(s[x*k:x*k+x+1], col[:x+1])
		}
	})
}

func (o *opShare) mulGram(dst, v []float64, n float64) {
	w := o.weights(n)
	g, u, tmp := o.shared(), o.vectors(), make([]float64, o.k)
	g.forward(u, v)
	for i := range u {
		floats.Mul(u[i], w[i])
	}
	g.adjointSum(tmp, u)
	floats.Add(dst, tmp)
}

// forms accumulates t1_z = Σ_x (Q̃_x A)_z P(z|x) and t2_z = Σ_x (Q̃_x A)_z²
// over the rows Q̃_x of q, per range of x, then adds the ranges in order.
func (o *opShare) forms(ctx context.Context, q []float64, _ *qFacts, tick func(float64)) error {
	k := o.k
	t1, t2 := make([][][]float64, cemChunks), make([][][]float64, cemChunks)
	err := o.chunks(ctx, tick, func(c int, g opGroup, inputs func(func(int) bool)) {
		a1, a2, z, row := o.vectors(), o.vectors(), o.vectors(), make([]float64, k)
		for x := range inputs {
			g.forward(z, q[x*k:(x+1)*k])
			for i, m := range o.ms {
				m.probRow(x, row)
				for y, c := range o.counts[i] {
					if c > 0 {
						v := z[i][y]
						a1[i][y] += v * row[y]
						a2[i][y] += v * v
					}
				}
			}
		}
		t1[c], t2[c] = a1, a2
	})
	if err != nil {
		return err
	}
	o.t1, o.t2 = o.vectors(), o.vectors()
	for c := range cemChunks {
		for i := range t1[c] {
			floats.Add(o.t1[i], t1[c][i])
			floats.Add(o.t2[i], t2[c][i])
		}
	}
	return nil
}

func (o *opShare) combine(dst []float64, h func(c, q, t1, t2 float64) float64) {
	u, tmp := o.vectors(), make([]float64, o.k)
	for i, c := range o.counts {
		for z, cz := range c {
			if cz > 0 {
				var t1, t2 float64
				if o.t1 != nil {
					t1, t2 = o.t1[i][z], o.t2[i][z]
				}
				u[i][z] = h(cz, o.q[i][z], t1, t2)
			}
		}
	}
	o.shared().adjointSum(tmp, u)
	floats.Add(dst, tmp)
}

// work is one adjoint and one forward batch per input, each about J+1
// transforms of the mechanisms' torus, and the rows of P read twice.
func (o *opShare) work(k int) float64 {
	j := float64(len(o.ms))
	return float64(k) * ((j+1)*o.ms[0].work() + 2*j*float64(k))
}

// columnShare is the users of any other mechanism, by their likelihood
// columns, made again on each pass (K entries a group) rather than held
// (G×K), and taken in blocks so that the K² work per group is matrix
// products.
type columnShare struct {
	k      int
	mechs  []Mechanism
	s      *Study
	groups []Group
	q      []float64 // p·a of each group's column a
	t1, t2 []float64
}

// columnBlock is the number of groups whose columns are multiplied at
// once.
const columnBlock = 64

// blocks calls f on blocks of at most columnBlock groups, from i on,
// with their likelihood columns as the rows of a (scaled by scale(j)).
func (c *columnShare) blocks(ctx context.Context, scale func(j int) float64, f func(i int, a blas64.General) error) error {
	return c.blocksTick(ctx, nil, scale, f)
}

// blocksTick is blocks that tells tick, when not nil, the fraction of
// groups done after each block.
func (c *columnShare) blocksTick(ctx context.Context, tick func(float64), scale func(j int) float64, f func(i int, a blas64.General) error) error {
	buf := make([]float64, columnBlock*c.k)
	for i := 0; i < len(c.groups); i += columnBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		if tick != nil {
			tick(float64(i) / float64(len(c.groups)))
		}
		nb := min(columnBlock, len(c.groups)-i)
		for r := range nb {
			gr := c.groups[i+r]
			row := buf[r*c.k : (r+1)*c.k]
			if col, _ := c.mechs[gr.Mech].Likelihood(row, gr.Report); &col[0] != &row[0] {
				copy(row, col)
			}
			if scale != nil {
				floats.Scale(scale(i+r), row)
			}
		}
		if err := f(i, blas64.General{Rows: nb, Cols: c.k, Stride: c.k, Data: buf[:nb*c.k]}); err != nil {
			return err
		}
	}
	return nil
}

func (c *columnShare) at(p []float64) error {
	c.q = make([]float64, len(c.groups))
	return c.blocks(context.Background(), nil, func(i int, a blas64.General) error {
		for r := range a.Rows {
			gr := c.groups[i+r]
			c.q[i+r] = floats.Dot(p, a.Data[r*c.k:(r+1)*c.k])
			if col := a.Data[r*c.k : (r+1)*c.k]; floats.Max(col) <= 0 {
				return errors.New("core: mechanism " + mechName(c.s, gr.Mech) + ": a report is impossible under every input")
			}
			if !(c.q[i+r] > 0) {
				return errors.New("core: cem: the estimate gives a report probability 0")
			}
		}
		return nil
	})
}

func (c *columnShare) gram(ctx context.Context, s []float64, n float64, tick func(float64)) error {
	scale := func(j int) float64 { return math.Sqrt(float64(c.groups[j].Count)/n) / c.q[j] }
	return c.blocksTick(ctx, tick, scale, func(_ int, a blas64.General) error {
		// Rows lo..hi of the lower triangle of Ŝ += aᵀa, on every core.
		linalg.Chunked(c.k, func(lo, hi int) {
			linalg.Gemm(blas.Trans, blas.NoTrans, 1, cols(a, lo, hi), cols(a, 0, hi), 1, blas64.General{Rows: hi - lo, Cols: hi, Stride: c.k, Data: s[lo*c.k:]})
		})
		return nil
	})
}

// cols returns columns lo..hi of a.
func cols(a blas64.General, lo, hi int) blas64.General {
	return blas64.General{Rows: a.Rows, Cols: hi - lo, Stride: a.Stride, Data: a.Data[lo:]}
}

func (c *columnShare) mulGram(dst, v []float64, n float64) {
	_ = c.blocks(context.Background(), nil, func(i int, a blas64.General) error {
		for r := range a.Rows {
			row, q := a.Data[r*c.k:(r+1)*c.k], c.q[i+r]
			floats.AddScaled(dst, float64(c.groups[i+r].Count)/n*floats.Dot(row, v)/(q*q), row)
		}
		return nil
	})
}

func (c *columnShare) forms(ctx context.Context, q []float64, _ *qFacts, tick func(float64)) error {
	c.t1, c.t2 = make([]float64, len(c.groups)), make([]float64, len(c.groups))
	y := make([]float64, columnBlock*c.k)
	qq := blas64.General{Rows: c.k, Cols: c.k, Stride: c.k, Data: q}
	return c.blocksTick(ctx, tick, nil, func(i int, a blas64.General) error {
		yy := blas64.General{Rows: a.Rows, Cols: c.k, Stride: c.k, Data: y[:a.Rows*c.k]}
		linalg.Chunked(c.k, func(lo, hi int) { linalg.Gemm(blas.NoTrans, blas.NoTrans, 1, a, cols(qq, lo, hi), 0, cols(yy, lo, hi)) })
		for r := range a.Rows {
			yr := y[r*c.k : (r+1)*c.k]
			c.t1[i+r], c.t2[i+r] = floats.Dot(yr, a.Data[r*c.k:(r+1)*c.k]), floats.Dot(yr, yr)
		}
		return nil
	})
}

func (c *columnShare) combine(dst []float64, h func(c, q, t1, t2 float64) float64) {
	_ = c.blocks(context.Background(), nil, func(i int, a blas64.General) error {
		for r := range a.Rows {
			j := i + r
			var t1, t2 float64
			if c.t1 != nil {
				t1, t2 = c.t1[j], c.t2[j]
			}
			floats.AddScaled(dst, h(float64(c.groups[j].Count), c.q[j], t1, t2), a.Data[r*c.k:(r+1)*c.k])
		}
		return nil
	})
}

// work is a rank-one update and a row of Q̃ products per group.
func (c *columnShare) work(k int) float64 {
	return 1.5 * float64(len(c.groups)) * float64(k) * float64(k)
}
