package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/privmap/privmap/internal/linalg"
)

// emModel is the EM map of a set of grouped reports.
type emModel interface {
	// dims returns K.
	dims() int
	// step sets next = θ ⊙ ∇L(θ), ∇L(θ) = (1/n) Σ_groups c·g/(θ·g), and
	// returns the normalised log-likelihood L(θ) = (1/n) Σ c·log(θ·g)
	// and the certified gap max_x ∇_x L(θ) − 1 (see emUpdate).
	step(theta, next []float64) (ll, gap float64)
}

// step is FW Algorithm 1's update on the likelihood columns.
func (c *columns) step(theta, next []float64) (float64, float64) { return emUpdate(theta, next, c.add) }

// emUpdate sets next = θ ⊙ G, G = ∇L(θ) the sum that add accumulates
// from zero, and returns add's log-likelihood and the gap max_x G_x − 1.
//
// The gap certifies how far θ is from the MLE θ̂ in likelihood: L is
// concave and Σ_x θ_x G_x = 1, so
//
//	L(θ̂) − L(θ) ≤ G·(θ̂ − θ) ≤ max_x G_x − 1,
//
// and it is 0 exactly when θ satisfies the KKT conditions of the MLE on
// the simplex (G_x = 1 where θ_x > 0, G_x ≤ 1 elsewhere).
func emUpdate(theta, next []float64, add func(theta, acc []float64) float64) (ll, gap float64) {
	ll, gap = gradientWith(add, theta, next)
	floats.Mul(next, theta)
	return ll, gap
}

// gradientWith sets grad = G = ∇L(θ), the sum that add accumulates from
// zero, and returns add's log-likelihood and the gap max_x G_x − 1.
func gradientWith(add func(theta, acc []float64) float64, theta, grad []float64) (ll, gap float64) {
	clear(grad)
	ll = add(theta, grad)
	return ll, floats.Max(grad) - 1
}

// add adds (1/n) Σ c·g/(θ·g) to acc and returns (1/n) Σ c·log P(report),
// −Inf when θ gives some report probability 0.
func (c *columns) add(theta, acc []float64) float64 {
	ll, comp := 0.0, 0.0 // compensated: see setTerm.add
	c.seen = append(c.seen[:0], theta...)
	c.seenDots = c.seenDots[:0]
	for i, g := range c.col {
		m := floats.Dot(theta, g)
		c.seenDots = append(c.seenDots, m)
		if m <= 0 {
			c.seenDots = c.seenDots[:0]
			return math.Inf(-1)
		}
		ll, comp = twoSum(ll, c.count[i]*(linalg.Log(m)+c.scale[i]), comp)
		floats.AddScaled(acc, c.count[i]/(c.n*m), g)
	}
	return (ll + comp) / c.n
}

// operatorTerm is the EM term of the users of one symbol-output mechanism
// in FW's operator form: with q their report counts,
// Σ c·g/(θ·g) = A (q ⊘ θA), two matrix-free products a step.
type operatorTerm struct {
	op       operator
	q        []float64 // counts over the outputs
	n        float64   // all users, of every mechanism
	out, tmp []float64
	p        []float64 // the output probabilities at the point of curve
}

func (t *operatorTerm) add(theta, acc []float64) float64 {
	t.out = t.outputs(t.out, theta)
	ll := 0.0
	for z, q := range t.q {
		if q == 0 {
			t.out[z] = 0
			continue
		}
		m := t.out[z]
		ll += q * linalg.Log(m)
		t.out[z] = q / (t.n * m)
	}
	t.tmp = t.op.MulVecTo(t.tmp, false, t.out)
	floats.Add(acc, t.tmp)
	return ll / t.n
}

// outputs sets dst to the output probabilities θA, floored: the FFT
// product is exact to about 1e−13·‖θ‖₁ (PlanarGeometric.MulVecTo), so
// outputs below 1e−12 of the mean are rounding, not probability.
func (t *operatorTerm) outputs(dst, theta []float64) []float64 {
	dst = t.op.MulVecTo(dst, true, theta)
	floor := 1e-12 * floats.Sum(theta) / float64(len(theta))
	for z, m := range dst {
		dst[z] = math.Max(m, floor)
	}
	return dst
}

func (t *operatorTerm) at(theta []float64) { t.p = t.outputs(t.p, theta) }

// curve adds (1/n) A(q ⊙ vA ⊘ (θA)²), the negated Hessian of the term's
// share of L at the point of at times v, to acc.
func (t *operatorTerm) curve(v, acc []float64) {
	t.out = t.op.MulVecTo(t.out, true, v)
	for z, q := range t.q {
		t.out[z] *= q / (t.n * t.p[z] * t.p[z])
	}
	t.tmp = t.op.MulVecTo(t.tmp, false, t.out)
	floats.Add(acc, t.tmp)
}

// A term is one share of the log-likelihood L: likelihood columns, or
// the users of one mechanism in operator form.
type term interface {
	// add adds the share's part of ∇L(θ) to acc and returns its part of
	// L(θ).
	add(theta, acc []float64) float64
	// at fixes θ as the point of later calls of curve.
	at(theta []float64)
	// curve adds the share's part of −∇²L(θ)·v to acc.
	curve(v, acc []float64)
	// diagonal adds the share's part of diag(−∇²L(θ)) to acc, and
	// reports false when it cannot (precond.go).
	diagonal(acc []float64) bool
	// reports returns the number of columns faceFrom writes, 0 when
	// the share cannot restrict its likelihood (face.go).
	reports() int
	// productWork estimates the multiply-adds of the share of one
	// Hessian product.
	productWork() float64
	// faceFrom writes the share's columns of facer.face from column i
	// on and returns the next column.
	faceFrom(free []int, x *mat.Dense, i int) int
}

// mixture is the EM map of several terms (columns or operators) over the
// same input alphabet.
type mixture struct {
	k     int
	terms []term
	// accs and lls hold each term's share of a step (each).
	accs [][]float64
	lls  []float64
}

func (m *mixture) dims() int { return m.k }

func (m *mixture) step(theta, next []float64) (float64, float64) {
	return emUpdate(theta, next, m.parallel)
}

// parallel adds every term's share of an EM step to acc and returns the
// log-likelihood. The terms are independent (each has its own buffers;
// the operators are safe for concurrent use), so they run on every core,
// each into an accumulator of its own; these are then added in the
// terms' order, so that the result does not depend on the schedule.
func (m *mixture) parallel(theta, acc []float64) float64 {
	return m.each(acc, func(t term, acc []float64) float64 { return t.add(theta, acc) })
}

// each adds every term's f, which adds to its accumulator and returns a
// number, to acc, and returns the sum of the numbers: on every core,
// each term into an accumulator of its own, added in the terms' order.
func (m *mixture) each(acc []float64, f func(t term, acc []float64) float64) float64 {
	if len(m.terms) == 1 {
		return f(m.terms[0], acc)
	}
	if m.accs == nil {
		m.accs, m.lls = make([][]float64, len(m.terms)), make([]float64, len(m.terms))
		for i := range m.accs {
			m.accs[i] = make([]float64, m.k)
		}
	}
	linalg.Each(len(m.terms), func(i int) {
		clear(m.accs[i])
		m.lls[i] = f(m.terms[i], m.accs[i])
	})
	sum := 0.0
	for i, a := range m.accs {
		floats.Add(acc, a)
		sum += m.lls[i]
	}
	return sum
}

// gradient sets grad = ∇L(θ) and returns L(θ) and the gap.
func (m *mixture) gradient(theta, grad []float64) (ll, gap float64) {
	return gradientWith(m.parallel, theta, grad)
}

func (m *mixture) at(theta []float64) {
	linalg.Each(len(m.terms), func(i int) { m.terms[i].at(theta) })
}

// hessVec sets dst = −∇²L(θ)·v at the point of at, the terms' shares
// added in their order as in parallel.
func (m *mixture) hessVec(v, dst []float64) {
	clear(dst)
	m.each(dst, func(t term, acc []float64) float64 {
		t.curve(v, acc)
		return 0
	})
}

// ColumnBudget is the number of likelihood entries (groups × K) of one
// mechanism above which its users are handled in operator form when the
// mechanism has one: 4M entries, 32 MB.
const ColumnBudget = 1 << 22

// newModel returns the EM map of the grouped reports: likelihood columns,
// except for the users of a mechanism with a matrix-free operator whose
// columns would exceed budget entries or cost more to apply than the
// operator (costlier), of local hashing (hashTerm, grouped by seed), and
// of a setReports mechanism whose columns would exceed budget entries
// (setTerm, read off the set bits).
func newModel(mechs []Mechanism, g *Groups, s *Study, budget int) (emModel, error) {
	return newModelWith(mechs, g, s, budget, nil)
}

// newModelWith is newModel whose likelihood columns come from lik, or
// from the mechanisms when lik is nil.
func newModelWith(mechs []Mechanism, g *Groups, s *Study, budget int, lik likelihoods) (emModel, error) {
	perMech := make([]int, len(mechs))
	for _, gr := range g.List {
		perMech[gr.Mech]++
	}
	var rest []Group
	var ops []*operatorTerm
	var streamed []term
	n := float64(g.N())
	for j, m := range mechs {
		if ts, ok := streamedTerms(m, g, j, perMech[j], budget); ok {
			streamed = append(streamed, ts...)
			perMech[j] = -1
			continue
		}
		if t := operatorFor(m, g, j, perMech[j], budget); t != nil {
			ops = append(ops, t)
			perMech[j] = -1
		}
	}
	if len(ops) == 0 && len(streamed) == 0 {
		return newColumnsWith(mechs, g, s, lik)
	}
	for _, gr := range g.List {
		if perMech[gr.Mech] >= 0 {
			rest = append(rest, gr)
		}
	}
	mix := &mixture{k: mechs[0].Inputs()}
	if len(rest) > 0 {
		c, err := newColumnsWith(mechs, &Groups{List: rest, Users: g.Users}, s, lik)
		if err != nil {
			return nil, err
		}
		c.n = n
		mix.terms = append(mix.terms, c)
	}
	mix.terms = append(mix.terms, batchPlanar(ops)...)
	mix.terms = append(mix.terms, streamed...)
	return mix, nil
}

// operatorFor returns the operator term of mechanism j's users, of
// groups groups, or nil when their columns are kept: a Channel with a
// matrix-free operator whose columns would exceed budget entries or cost
// more to apply than the operator (costlier).
func operatorFor(m Mechanism, g *Groups, j, groups, budget int) *operatorTerm {
	op, ok := m.(operator)
	c, isChannel := m.(Channel)
	if !ok || !isChannel {
		return nil
	}
	if entries := groups * m.Inputs(); entries <= budget && !costlier(op, entries) {
		return nil
	}
	t := &operatorTerm{op: op, q: make([]float64, c.Outputs()), n: float64(g.N())}
	for _, gr := range g.List {
		if gr.Mech == j {
			t.q[gr.Report.Symbol] += float64(gr.Count)
		}
	}
	return t
}

// streamedTerms returns the terms of mechanism j's groups (groups of
// them) that are read without likelihood columns, and whether it is one
// whose reports are: local hashing always (by seed in hashTerms while
// its seeds repeat, else each report's preimage in setTerms: see
// hashSets), a setReports mechanism when its columns would exceed
// budget entries (setTerm).
func streamedTerms(m Mechanism, g *Groups, j, groups, budget int) ([]term, bool) {
	n := float64(g.N())
	if h, ok := m.(hasher); ok {
		own := mechGroups(g.List, j)
		switch {
		case len(own) == 0:
			return nil, true
		case seedsRepeat(own):
			return hashTerms(h, own, n, streamParts), true
		}
		return setTerms(hashSets{h}, preimages(h, own), n, streamParts), true
	}
	if sr, ok := m.(setReports); ok && groups*m.Inputs() > budget {
		return setTerms(sr, mechGroups(g.List, j), n, streamParts), true
	}
	return nil, false
}

// mechGroups returns mechanism j's groups of list, in the order of seed
// and value.
func mechGroups(list []Group, j int) []Group {
	var own []Group
	for _, gr := range list {
		if gr.Mech == j {
			own = append(own, gr)
		}
	}
	slices.SortFunc(own, func(a, b Group) int {
		return cmp.Or(cmp.Compare(a.Report.Seed, b.Report.Seed), cmp.Compare(a.Report.Symbol, b.Report.Symbol))
	})
	return own
}

// costlier reports whether a mechanism's likelihood columns of entries
// entries cost more to apply than its operator, when the operator says
// what it costs (a worker: a planar geometric mechanism's two FFTs). A
// planar mechanism on NYC's 2,256 cells of 1 km has about 1,800 groups,
// 4.1M entries a product against its FFTs' 1.2M: in columns GIBU took
// 5.9 s there, 2.7 times its 2.2 s on the 9,024 cells of 0.5 km, where
// the columns exceed ColumnBudget (docs/PERFORMANCE.md, the grid-size
// sweep). Operators of O(K) products (k-RR, the identity) keep their
// columns within the budget: Newton's method forms its dense Hessian on
// the face from them.
func costlier(op operator, entries int) bool {
	w, ok := op.(worker)
	return ok && float64(entries) > w.work()
}

func (c *columns) dims() int { return c.k }

// GIBU returns the maximum-likelihood estimate of the distribution of the
// users' data from their grouped reports, whatever mixture of mechanisms
// they used: FW Algorithm 1 (= CEM eq. 14 over per-user channels),
//
//	θ_x ← θ_x · (1/n) Σ_groups c · g_x / (θ·g),
//
// with g the likelihood column of a group's report, or in FW's operator
// form θ ← θ ⊙ Σ_A (n^A/n) A(q^A ⊘ θA) for the users of a planar
// geometric mechanism on a grid too large for columns. The fixed point is
// the MLE (FW Theorem 1). Plain EM crawls near the boundary of the
// simplex, so each cycle of two EM steps is extrapolated by SQUAREM
// (Varadhan & Roland 2008, scheme S3) and followed by a third step; the
// extrapolation is kept in the simplex (see squarem) and dropped
// when it would lower the likelihood, so the log-likelihood of the
// iterates never decreases. ctx cancels.
func GIBU(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, opt EMOptions) (*Estimate, error) {
	m, err := newModel(mechs, g, s, ColumnBudget)
	if err != nil {
		return nil, err
	}
	return gibuRun(ctx, m, mechs, g, opt)
}

// gibuRun is GIBU on its model m of the grouped reports g.
func gibuRun(ctx context.Context, m emModel, mechs []Mechanism, g *Groups, opt EMOptions) (*Estimate, error) {
	if k, counts, ok := oneClosedForm(mechs, g); ok && opt.Init == nil {
		// Every user runs one k-RR: the MLE has a closed form
		// (KRR.MLE), which the first step then certifies.
		opt.Init = k.MLE(counts)
	}
	return runEM(ctx, m, opt)
}

// oneClosedForm reports whether every user of g runs one channel whose
// MLE has a closed form (a closedFormer: k-RR of one K and ε), and
// returns it with the counts of each reported symbol.
func oneClosedForm(mechs []Mechanism, g *Groups) (closedFormer, []float64, bool) {
	var k closedFormer
	for j, n := range g.Users {
		if n == 0 {
			continue
		}
		m, ok := mechs[j].(closedFormer)
		if !ok || k != nil && !k.sameChannel(m) {
			return nil, nil, false
		}
		k = m
	}
	if k == nil {
		return nil, nil, false
	}
	counts := make([]float64, k.Outputs())
	for _, gr := range g.List {
		counts[gr.Report.Symbol] += float64(gr.Count)
	}
	return k, counts, true
}

// runEM iterates the EM map of m from opt.Init, accelerated by SQUAREM
// unless opt.Plain, and, for likelihood columns small enough, hands over
// to Newton's method near the MLE (polish).
func runEM(ctx context.Context, m emModel, opt EMOptions) (*Estimate, error) {
	opt = opt.withDefaults()
	theta, err := startingPoint(m.dims(), opt.Init)
	if err != nil {
		return nil, err
	}
	curved, newton := m.(curvedModel)
	newton = newton && !opt.Plain
	em := newSquarem(m)
	est := &Estimate{}
	prev := math.NaN()
	for est.Iterations < opt.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l0, gap := m.step(theta, em.t1)
		est.Iterations++
		if math.IsInf(l0, -1) {
			return nil, errors.New("core: the initial distribution gives some report probability 0; start from a positive one")
		}
		if opt.Progress != nil {
			opt.Progress(est.Iterations, l0, gap)
		}
		if opt.stop(l0, prev, gap, est.Iterations, newton) {
			break
		}
		prev = l0
		var steps int
		theta, steps = em.cycle(theta, opt.Plain)
		est.Iterations += steps
	}
	est.Theta = theta
	est.LogLik, est.Gap = m.step(theta, em.t1)
	if newton && est.Gap > opt.GapTol {
		est.LogLik, est.Gap, est.Iterations, err = polish(ctx, curved, theta, opt.GapTol, est.Iterations, opt.MaxIter, opt.Progress, opt.Inner)
		if err != nil {
			return nil, err
		}
	}
	est.Converged = est.Gap <= opt.GapTol
	est.Gap = math.Max(est.Gap, 0) // a bound on a difference ≥ 0; below 0 is rounding
	return est, nil
}

// withDefaults returns opt with its zero values replaced by the defaults.
func (opt EMOptions) withDefaults() EMOptions {
	if opt.Tol <= 0 {
		opt.Tol = 1e-14
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 100000
	}
	if opt.GapTol <= 0 {
		opt.GapTol = DefaultGapTol
	}
	return opt
}

// stop reports whether EM stops at a step of log-likelihood ll after one
// of prev, with the given gap after iter steps: certified, stalled, or
// ready to hand over to Newton's method when newton.
func (opt EMOptions) stop(ll, prev, gap float64, iter int, newton bool) bool {
	stalled := math.Abs(ll-prev) < opt.Tol*math.Max(1, math.Abs(ll))
	handover := newton && (gap <= newtonFrom || iter >= newtonAfter)
	return gap <= opt.GapTol || stalled || handover
}

// startingPoint returns θ⁰: init normalised, or uniform when init is nil.
func startingPoint(k int, init []float64) ([]float64, error) {
	theta := fill(nil, k, 1/float64(k))
	if init == nil {
		return theta, nil
	}
	if len(init) != k {
		return nil, fmt.Errorf("core: initial distribution has %d entries for %d symbols", len(init), k)
	}
	copy(theta, init)
	floats.Scale(1/floats.Sum(theta), theta)
	return theta, nil
}

// squaremState holds an EM model and the work vectors of its cycles.
type squaremState struct {
	m                emModel
	t1, t2, t3, r, v []float64
}

func newSquarem(m emModel) *squaremState {
	k := m.dims()
	return &squaremState{m: m, t1: make([]float64, k), t2: make([]float64, k), t3: make([]float64, k), r: make([]float64, k), v: make([]float64, k)}
}

// cycle continues from θ, whose EM image is in t1: plainly, θ ← t1;
// else one more EM step, the SQUAREM extrapolation and a third step,
// keeping whichever of the last two images has the higher likelihood.
// It returns the new θ (one of the state's vectors; θ's storage is
// reused) and the EM steps it took.
func (s *squaremState) cycle(theta []float64, plain bool) ([]float64, int) {
	if plain {
		theta, s.t1 = s.t1, theta
		return theta, 0
	}
	l1, _ := s.m.step(s.t1, s.t2)
	if !squarem(theta, s.t1, s.t2, s.r, s.v, s.t3) {
		theta, s.t2 = s.t2, theta
		return theta, 1
	}
	// t3 is the extrapolated point; one EM step from it.
	lp, _ := s.m.step(s.t3, s.t1)
	if lp >= l1 {
		theta, s.t1 = s.t1, theta
	} else {
		theta, s.t2 = s.t2, theta
	}
	return theta, 2
}

// EM hands over to Newton's method (polish) once the certified
// gap is below newtonFrom or after newtonAfter EM steps, whichever comes
// first: Newton's steps converge fast near the MLE, and EM's slowly.
const (
	newtonFrom  = 1e-4
	newtonAfter = 300
)

// squarem sets dst to the SQUAREM S3 extrapolation θ0 − 2αr + α²v from
// θ0 and its two EM images θ1, θ2 (r = θ1 − θ0, v = θ2 − 2θ1 + θ0,
// α = −‖r‖/‖v‖), floored at θ2/100 and renormalised. The floor keeps dst
// in the simplex and positive wherever θ2 is, while letting coordinates
// headed for the boundary shrink a hundredfold a cycle (halving α until
// the point is feasible instead collapses to plain EM exactly where EM is
// slow: it took 2.5 times the steps on FW's planar set-up). It returns
// false when α ≥ −1, where the extrapolation would not go beyond θ2.
func squarem(t0, t1, t2, r, v, dst []float64) bool {
	for x := range t0 {
		r[x] = t1[x] - t0[x]
		v[x] = t2[x] - 2*t1[x] + t0[x]
	}
	nv := floats.Norm(v, 2)
	if nv == 0 {
		return false
	}
	alpha := -floats.Norm(r, 2) / nv
	if alpha >= -1-1e-9 {
		return false
	}
	for x := range dst {
		// Coordinates the extrapolation would end below 1/100 of θ2's stop
		// there: they may shrink fast but stay positive, so that a later
		// step can revive them.
		dst[x] = math.Max(t0[x]-2*alpha*r[x]+alpha*alpha*v[x], t2[x]/100)
	}
	floats.Scale(1/floats.Sum(dst), dst)
	return true
}

// columns holds the likelihood column of every group: P(report | x) =
// col[i][x]·e^{scale[i]}. Building them rejects reports impossible under
// every input.
type columns struct {
	k     int
	col   [][]float64
	scale []float64
	count []float64
	n     float64
	dots  []float64 // θ·g of each group at the point of curve
	// seen and seenDots are the last point add was called at and its
	// θ·g: Newton's method fixes the point of curve where its line
	// search last evaluated, and at takes them instead of forming them
	// again (7% of a bootstrap's time).
	seen, seenDots []float64
}

func (c *columns) at(theta []float64) {
	if len(c.seenDots) == len(c.col) && slices.Equal(c.seen, theta) {
		c.dots = append(c.dots[:0], c.seenDots...)
		return
	}
	c.dots = slices.Grow(c.dots[:0], len(c.col))
	for _, g := range c.col {
		c.dots = append(c.dots, floats.Dot(theta, g))
	}
}

// hessVec sets dst = −∇²L(θ)·v at the point of at.
func (c *columns) hessVec(v, dst []float64) {
	clear(dst)
	c.curve(v, dst)
}

// curve adds (1/n) Σ c·g (g·v)/(θ·g)², −∇²L(θ)·v at the point of at,
// to acc.
func (c *columns) curve(v, acc []float64) {
	for i, g := range c.col {
		floats.AddScaled(acc, c.count[i]/c.n*floats.Dot(v, g)/(c.dots[i]*c.dots[i]), g)
	}
}

func newColumns(mechs []Mechanism, g *Groups, s *Study) (*columns, error) {
	return newColumnsWith(mechs, g, s, nil)
}

// likelihoods gives the likelihood column of a report of mechanism j
// as Mechanism.Likelihood does: a bootstrap's replicates share the
// columns of their reports (bootstrap.go). The column is read, never
// written.
type likelihoods func(j int, r Report) (col []float64, scale float64)

// newColumnsWith is newColumns whose columns come from lik, or from the
// mechanisms when lik is nil.
func newColumnsWith(mechs []Mechanism, g *Groups, s *Study, lik likelihoods) (*columns, error) {
	if lik == nil {
		lik = func(j int, r Report) ([]float64, float64) { return mechs[j].Likelihood(nil, r) }
	}
	if len(g.List) == 0 {
		return nil, errors.New("core: no reports")
	}
	k := mechs[g.List[0].Mech].Inputs()
	if err := CheckMemory(fmt.Sprintf("holding the likelihood columns of %d distinct reports over %d symbols", len(g.List), k), 8*float64(len(g.List))*float64(k)); err != nil {
		return nil, err
	}
	c := &columns{k: k, col: make([][]float64, len(g.List)), scale: make([]float64, len(g.List)), count: make([]float64, len(g.List))}
	for i, gr := range g.List {
		m := mechs[gr.Mech]
		if m.Inputs() != k {
			return nil, fmt.Errorf("core: mechanism %s has %d inputs, others %d", mechName(s, gr.Mech), m.Inputs(), k)
		}
		col, scale := lik(gr.Mech, gr.Report)
		if slices.Max(col) <= 0 || math.IsInf(scale, -1) {
			return nil, fmt.Errorf("core: mechanism %s: report %s is impossible under every input", mechName(s, gr.Mech), clip(gr.Report.String(), 40))
		}
		c.col[i], c.scale[i], c.count[i] = col, scale, float64(gr.Count)
		c.n += float64(gr.Count)
	}
	return c, nil
}

// The names of GIBU, the MLE over every mechanism (FW Alg. 1), and of
// plain EM, which is the same estimator (CEM Alg. 1).
const (
	MethodGIBU Method = "gibu"
	MethodEM   Method = "em" // alias of gibu
)

// gibuEstimator and emEstimator are GIBU under its two names,
// registered in registry.
var (
	gibuEstimator = Estimator{Method: MethodGIBU, Title: "GIBU", Help: "MLE over all mechanisms at once (FW Alg. 1)",
		Refuses: CapPersonal, Certified: true, Cost: CostEM, run: (*estimation).gibu, ownLogLik: true}
	emEstimator = Estimator{Method: MethodEM, Alias: MethodGIBU,
		Refuses: CapPersonal, Certified: true, Cost: CostEM, run: (*estimation).gibu, ownLogLik: true}
)

func (e *estimation) gibu() (*Estimate, error) { return GIBU(e.ctx, e.mechs, e.g, e.s, e.opt.EM) }
