package core

import (
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// faceEntries bounds the memory of a dense Newton step
// (faceHessian.build): reports × |F| entries of restricted likelihoods
// at most 8M (64 MB).
const faceEntries = 1 << 23

// A facer is a curved model that can write its likelihood restricted to
// a set of symbols, for a Newton step solved densely on the free face.
type facer interface {
	curvedModel
	// reports returns the number of rows that face writes: the distinct
	// reports with users, or 0 when the model cannot restrict.
	reports() int
	// productWork estimates the multiply-adds of one Hessian product.
	productWork() float64
	// face sets column i of x (|free| × reports), at the point of at,
	// to √(c_i/n)/(θ·g_i) · g_i restricted to free, for each report i
	// of count c_i and likelihood g_i: then XXᵀ is the negated Hessian
	// of L on the face.
	face(free []int, x *mat.Dense)
}

// faceMax bounds the face of a dense Newton step: its Cholesky
// factorisation, which cannot be cancelled, takes f³/3 multiply-adds,
// 0.3 s at 1,500 symbols.
const faceMax = 1500

// faceable reports whether a dense Newton step on a face of f symbols
// fits NewtonBudget, faceEntries and faceMax for rows reports, and costs
// less than the cgSteps Hessian products of work multiply-adds each that
// conjugate gradients may take: k-RR's products cost O(K), where forming
// the Hessian would cost more than any solve by CG.
func faceable(rows, f int, work float64) bool {
	r, ff := float64(rows), float64(f)
	dense := r * ff * ff
	return rows > 0 && f <= faceMax && dense <= NewtonBudget && dense <= cgSteps*work && r*ff <= faceEntries
}

// opWork estimates the multiply-adds of one application of op on k
// symbols: its own estimate when it knows one (a worker: a planar
// geometric channel's two FFTs), the sum of a compound's parts; the
// other operators of this package apply in O(K).
func opWork(op operator, k int) float64 {
	switch o := op.(type) {
	case worker:
		return o.work()
	case *compoundOp:
		w := 0.0
		for _, op := range o.ops {
			w += opWork(op, k)
		}
		return w
	}
	return 4 * float64(k)
}

func (c *columns) productWork() float64 { return 2 * float64(len(c.col)*c.k) }

func (t *operatorTerm) productWork() float64 { return 2 * opWork(t.op, len(t.q)) }

// productWork counts planarTerms' 2J + 2 shared transforms.
func (t *planarTerms) productWork() float64 {
	return float64(2*len(t.b.ms)+2) * t.b.ms[0].fftWork()
}

func (m *mixture) productWork() float64 {
	w := 0.0
	for _, t := range m.terms {
		w += t.productWork()
	}
	return w
}

// faceHessian is the negated Hessian H₀ formed densely on a face F₀ at
// a point θ₀. On a face F ⊆ F₀ its principal submatrix is the Hessian
// at θ₀ itself — a second step from θ₀ on a smaller face (newtonState's
// rebind) needs no new one — and, at later points, a preconditioner
// for conjugate gradients (newtonDirection).
type faceHessian struct {
	theta []float64 // θ₀
	pos   []int     // each symbol's row in h, −1 off F₀
	h     *mat.SymDense
	x     *mat.Dense // the rows of facer.face at θ₀, for extend
	// borrowed: h was formed for other reports (a bootstrap's estimate,
	// borrowedHessian); the steps on F₀ are then solved with it as it
	// is, each a chord step (Kelley 1995, §5.4.1), its factorisation kept
	// in last for as long as the face and the damping stay.
	borrowed bool
	last     struct {
		free []int
		damp float64
		pr   *choleskyProjector
	}
}

// lagSteps bounds the conjugate-gradient iterations of a Newton step
// preconditioned by an earlier dense Hessian: beyond, it is cheaper to
// form the Hessian again.
const lagSteps = 25

// freeSet returns the symbols that bound leaves free.
func freeSet(bound []bool) []int {
	var free []int
	for x, b := range bound {
		if !b {
			free = append(free, x)
		}
	}
	return free
}

// build forms the negated Hessian of m at θ on the face free densely and
// keeps it, reporting false when m cannot restrict its likelihood or the
// face is too large for faceable. Near the MLE of a wide kernel's
// deconvolution the support is a few hundred symbols of thousands (NYC's
// [IBU]_R: 287 of 9,024), where H_F = XXᵀ (facer.face) is formed and
// factorised in a fraction of a second while conjugate gradients need
// hundreds of products with the whole operator.
// ctx cancels between blocks of the product.
func (c *faceHessian) build(ctx context.Context, m curvedModel, theta []float64, free []int) (bool, error) {
	fm, ok := m.(facer)
	if !ok {
		return false, nil
	}
	f, rows := len(free), fm.reports()
	if f == 0 || !faceable(rows, f, fm.productWork()) {
		return false, nil
	}
	fm.at(theta)
	x := mat.NewDense(f, rows, nil)
	fm.face(free, x)
	if c.borrowed {
		// Its slices are shared by every replicate that borrowed it.
		*c = faceHessian{}
	}
	c.theta = append(c.theta[:0], theta...)
	c.pos = slices.Grow(c.pos[:0], len(theta))[:len(theta)]
	for x := range c.pos {
		c.pos[x] = -1
	}
	for a, x := range free {
		c.pos[x] = a
	}
	h, err := gram(ctx, x)
	if err != nil {
		c.h, c.x = nil, nil
		return false, err
	}
	c.h, c.x = h, x
	return true, nil
}

// extend adds to the kept face the symbols of free outside it, the
// Hessian's new rows formed at θ₀ (XXᵀ's new blocks), and reports
// whether it did: not when they are more than a quarter of free (a
// fresh Hessian at the current point is then worth its cost) or the
// larger face is not faceable. As the step's preconditioner, the
// Hessian at θ₀ serves where the face gained a few symbols as where it
// lost some. ctx cancels between blocks of the products.
func (c *faceHessian) extend(ctx context.Context, m curvedModel, free []int) (bool, error) {
	if c.x == nil { // none kept, or borrowed without its rows
		return false, nil
	}
	add := c.outside(free)
	if len(add) == 0 {
		return true, nil
	}
	fm, ok := m.(facer)
	if !ok {
		return false, nil
	}
	f0, rows := c.x.Dims()
	f := f0 + len(add)
	if 4*len(add) > len(free) || !faceable(rows, f, fm.productWork()) {
		return false, nil
	}
	fm.at(c.theta)
	x := mat.NewDense(f, rows, nil)
	x.Slice(0, f0, 0, rows).(*mat.Dense).Copy(c.x)
	xa := x.Slice(f0, f, 0, rows).(*mat.Dense)
	fm.face(add, xa)
	cross, err := products(ctx, c.x, xa)
	if err != nil {
		return false, err
	}
	ha, err := gram(ctx, xa)
	if err != nil {
		return false, err
	}
	h := mat.NewSymDense(f, nil)
	for a := range f0 {
		for b := a; b < f0; b++ {
			h.SetSym(a, b, c.h.At(a, b))
		}
		for b := range add {
			h.SetSym(a, f0+b, cross.At(a, b))
		}
	}
	for a := range add {
		for b := a; b < len(add); b++ {
			h.SetSym(f0+a, f0+b, ha.At(a, b))
		}
		c.pos[add[a]] = f0 + a
	}
	c.h, c.x = h, x
	return true, nil
}

// outside returns the symbols of free off the kept face.
func (c *faceHessian) outside(free []int) []int {
	var add []int
	for _, x := range free {
		if c.pos[x] < 0 {
			add = append(add, x)
		}
	}
	return add
}

// at reports whether the kept Hessian was formed at θ, or is borrowed
// and serves at every point.
func (c *faceHessian) at(theta []float64) bool {
	return c.h != nil && !c.borrowed && slices.Equal(c.theta, theta)
}

// factorAt returns factor's projector for the face free at θ with the
// damping damp (faceRidge). A borrowed Hessian's ridge is taken at θ₀
// and its factorisation kept while free and damp stay the same: the
// replicate's steps then cost a gradient and two triangular solves.
func (c *faceHessian) factorAt(theta []float64, free []int, damp float64) (*choleskyProjector, []float64, bool) {
	if !c.borrowed {
		ridge := faceRidge(theta, free, damp)
		pr, ok := c.factor(free, ridge)
		return pr, ridge, ok
	}
	ridge := faceRidge(c.theta, free, damp)
	if c.last.pr != nil && c.last.damp == damp && slices.Equal(c.last.free, free) {
		return c.last.pr, ridge, true
	}
	pr, ok := c.preconditioner(free, ridge)
	if ok {
		c.last.free, c.last.damp, c.last.pr = slices.Clone(free), damp, pr
	}
	return pr, ridge, ok
}

// factor returns the Cholesky factorisation of the kept Hessian's
// principal submatrix on free plus diag(ridge) (faceRidge), and
// P1 = (H + ridge)⁻¹1, or nil when free leaves the kept face or the sum
// is singular to working precision.
func (c *faceHessian) factor(free []int, ridge []float64) (*choleskyProjector, bool) {
	if c.h == nil {
		return nil, false
	}
	for _, x := range free {
		if c.pos[x] < 0 {
			return nil, false
		}
	}
	f := len(free)
	h := mat.NewSymDense(f, nil)
	for a, x := range free {
		for b := a; b < f; b++ {
			h.SetSym(a, b, c.h.At(c.pos[x], c.pos[free[b]]))
		}
		h.SetSym(a, a, h.At(a, a)+ridge[x])
	}
	ch := new(mat.Cholesky)
	if !ch.Factorize(h) {
		return nil, false
	}
	var p1 mat.VecDense
	if ch.SolveVecTo(&p1, mat.NewVecDense(f, fill(nil, f, 1))) != nil {
		return nil, false
	}
	u := ch.RawU().(interface{ RawTriangular() blas64.Triangular }).RawTriangular()
	return &choleskyProjector{ch: ch, u: u, free: free, p1: p1.RawVector().Data, buf: make([]float64, f)}, true
}

// preconditioner is factor for a borrowed Hessian, which only
// preconditions conjugate gradients on the replicate's own Hessian: a
// factorisation that is poorly conditioned slows them, never misleads
// them, so it is taken without the condition estimate that
// mat.Cholesky makes (a tenth of a bootstrap's time).
func (c *faceHessian) preconditioner(free []int, ridge []float64) (*choleskyProjector, bool) {
	for _, x := range free {
		if c.pos[x] < 0 {
			return nil, false
		}
	}
	f := len(free)
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: f, Stride: f, Data: make([]float64, f*f)}
	h := c.h.RawSymmetric()
	for a, x := range free {
		row := h.Data[c.pos[x]*h.Stride:]
		for b := a; b < f; b++ {
			i, j := c.pos[x], c.pos[free[b]]
			if i <= j {
				u.Data[a*f+b] = row[j]
			} else {
				u.Data[a*f+b] = h.Data[j*h.Stride+i]
			}
		}
		u.Data[a*f+a] += ridge[x]
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: f, Stride: f, Data: u.Data}); !ok {
		return nil, false
	}
	pr := &choleskyProjector{u: u, free: free, p1: fill(nil, f, 1), buf: make([]float64, f)}
	pr.solveInPlace(pr.p1)
	return pr, true
}

// solve returns the Newton direction d over all K symbols (0 off the
// face) with P = H⁻¹ the kept Hessian at θ with its ridge:
//
//	H d = G_F − μ·1,   1ᵀd = 0,   μ = 1ᵀH⁻¹G_F / 1ᵀH⁻¹1,
//
// or nil when the solve is singular to working precision.
func (c *choleskyProjector) solve(grad []float64) []float64 {
	gf := mat.NewVecDense(len(c.free), nil)
	for a, x := range c.free {
		gf.SetVec(a, grad[x])
	}
	var hg mat.VecDense
	if c.ch.SolveVecTo(&hg, gf) != nil {
		return nil
	}
	mu := floats.Sum(hg.RawVector().Data) / floats.Sum(c.p1)
	d := make([]float64, len(grad))
	for a, x := range c.free {
		d[x] = hg.AtVec(a) - mu*c.p1[a]
	}
	return d
}

// faceRidge returns the damping damp·W⁻¹ on the free symbols, 0 off
// them, with W = diag(max(θ_x, 1/(100K))) as cgStep's metric: it keeps
// the dense Hessian defined where it is singular (symbols no report
// tells apart), and the same ridge damps the steps solved with it by
// conjugate gradients.
func faceRidge(theta []float64, free []int, damp float64) []float64 {
	r := make([]float64, len(theta))
	for _, x := range free {
		r[x] = damp / math.Max(theta[x], 0.01/float64(len(theta)))
	}
	return r
}

// choleskyProjector is P = (H₀ + ridge)⁻¹ on the face free, H₀ a negated
// Hessian formed densely and factorised.
type choleskyProjector struct {
	ch   *mat.Cholesky
	u    blas64.Triangular // the factor U of H = UᵀU
	free []int
	p1   []float64 // P1
	buf  []float64 // scratch of project
}

// solveInPlace sets b = (UᵀU)⁻¹b by two triangular solves, as
// mat.Cholesky.SolveVecTo does less its condition check (factor kept
// only factorisations that passed it) and its copies: on a face of
// 250 symbols CG's preconditioning took a sixth of a bootstrap's time.
func (c *choleskyProjector) solveInPlace(b []float64) {
	v := blas64.Vector{N: len(b), Inc: 1, Data: b}
	blas64.Trsv(blas.Trans, c.u, v)
	blas64.Trsv(blas.NoTrans, c.u, v)
}

func (c *choleskyProjector) project(z, r []float64) (rho, dev float64) {
	pr := c.buf
	for a, x := range c.free {
		pr[a] = r[x]
	}
	c.solveInPlace(pr)
	lambda := floats.Sum(pr) / floats.Sum(c.p1)
	clear(z)
	for a, x := range c.free {
		z[x] = pr[a] - lambda*c.p1[a]
		e := r[x] - lambda
		rho += z[x] * e
		dev = math.Max(dev, math.Abs(e))
	}
	return math.Max(rho, 0), dev
}

// gramBlock is the block size of gram.
const gramBlock = 128

// gram returns XXᵀ, its upper triangle by blocks of gramBlock rows, each
// block a general product, which gonum runs on every core with
// dot-product kernels: on 1,000 × 3,896 it takes 0.56 s where the whole
// general product takes 0.87 s, gonum's symmetric rank-k update 1.45 s,
// and XᵀX with X stored by reports (axpy kernels) three times longer.
// ctx cancels between block rows, each at most gramBlock × faceEntries
// multiply-adds (0.25 s).
func gram(ctx context.Context, x *mat.Dense) (*mat.SymDense, error) {
	f, n := x.Dims()
	h := mat.NewSymDense(f, nil)
	raw := h.RawSymmetric()
	var blk mat.Dense
	for i := 0; i < f; i += gramBlock {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ie := min(i+gramBlock, f)
		for j := i; j < f; j += gramBlock {
			je := min(j+gramBlock, f)
			blk.Reset()
			blk.Mul(x.Slice(i, ie, 0, n), x.Slice(j, je, 0, n).T())
			for a := i; a < ie; a++ {
				from := max(j, a)
				copy(raw.Data[a*raw.Stride+from:a*raw.Stride+je], blk.RawRowView(a - i)[from-j:])
			}
		}
	}
	return h, nil
}

// products returns ABᵀ by blocks of gramBlock rows of A, ctx cancelling
// between them.
func products(ctx context.Context, a, b *mat.Dense) (*mat.Dense, error) {
	r, n := a.Dims()
	c, _ := b.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i += gramBlock {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ie := min(i+gramBlock, r)
		out.Slice(i, ie, 0, c).(*mat.Dense).Mul(a.Slice(i, ie, 0, n), b.T())
	}
	return out, nil
}

// faceRows writes the columns of x from column i on for the reports of
// counts q over an operator's outputs with probabilities p: for each z
// with q_z > 0, √(q_z/n)/p_z · A(free, z). It returns the next column.
func faceRows(a entrier, q, p []float64, n float64, free []int, x *mat.Dense, i int) int {
	for z, c := range q {
		if c == 0 {
			continue
		}
		w := math.Sqrt(c/n) / p[z]
		for b, s := range free {
			x.Set(b, i, w*a.Prob(s, z))
		}
		i++
	}
	return i
}

// nonzero returns the number of positive counts in q.
func nonzero(q []float64) int {
	n := 0
	for _, c := range q {
		if c > 0 {
			n++
		}
	}
	return n
}

func (c *columns) reports() int { return len(c.col) }

func (c *columns) face(free []int, x *mat.Dense) {
	c.faceFrom(free, x, 0)
}

// faceFrom writes c's columns of x from column i on and returns the
// next column.
func (c *columns) faceFrom(free []int, x *mat.Dense, i int) int {
	for j, g := range c.col {
		w := math.Sqrt(c.count[j]/c.n) / c.dots[j]
		for b, s := range free {
			x.Set(b, i, w*g[s])
		}
		i++
	}
	return i
}

// reports returns the reports of the mixture's terms, or 0 when one of
// them cannot restrict its likelihood.
func (m *mixture) reports() int {
	rows := 0
	for _, t := range m.terms {
		r := t.reports()
		if r == 0 {
			return 0
		}
		rows += r
	}
	return rows
}

func (m *mixture) face(free []int, x *mat.Dense) {
	i := 0
	for _, t := range m.terms {
		i = t.faceFrom(free, x, i)
	}
}

// reports returns the outputs with users, or 0 when the operator gives
// no entries.
func (t *operatorTerm) reports() int {
	if !gives(t.op) {
		return 0
	}
	return nonzero(t.q)
}

// gives reports whether op gives its entries: an entrier, and for a
// compoundOp, every operator it sums.
func gives(op operator) bool {
	if c, ok := op.(*compoundOp); ok {
		for _, o := range c.ops {
			if !gives(o) {
				return false
			}
		}
		return true
	}
	_, ok := op.(entrier)
	return ok
}

func (t *operatorTerm) faceFrom(free []int, x *mat.Dense, i int) int {
	return faceRows(t.op.(entrier), t.q, t.p, t.n, free, x, i)
}

func (t *planarTerms) reports() int {
	rows := 0
	for _, q := range t.q {
		rows += nonzero(q)
	}
	return rows
}

func (t *planarTerms) faceFrom(free []int, x *mat.Dense, i int) int {
	for j, m := range t.b.ms {
		i = faceRows(m, t.q[j], t.p[j], t.n, free, x, i)
	}
	return i
}

// Prob returns the entry Σ_A w_A A(x, z); it may be called only when
// every operator gives its entries (gives).
func (c *compoundOp) Prob(x, z int) float64 {
	s := 0.0
	for i, op := range c.ops {
		s += c.w[i] * op.(entrier).Prob(x, z)
	}
	return s
}

// Prob returns the entry of the bordered product of the tables.
func (o borderedOp) Prob(x, z int) float64 { return o.p.Prob(x, z) }
