package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/privmap/privmap/internal/linalg"
)

// DefaultReplicates is IntervalOptions.Replicates' default: 200 draws,
// enough for the 2.5% and 97.5% quantiles of a 95% interval to rest on
// five replicates each beyond them.
const DefaultReplicates = 200

// MaxReplicates bounds IntervalOptions.Replicates.
const MaxReplicates = 100000

// replicateStream is the PCG stream of replicate b's generator,
// streamBase + b, apart from the streams the application seeds.
const replicateStream = 0x6b6f6f7473747261

// Bootstrap draws the replicates of a parametric bootstrap
// (Efron & Tibshirani 1993, §6.5): B sets of reports drawn from the
// estimate θ̂ through the same population of mechanisms — as many users of
// each mechanism as reported, n^A, each user's datum drawn from θ̂ and
// sanitised by her mechanism — and re-estimated by the same method.
// Replicate b is drawn from its own generator (PCG seeded with seed and
// stream replicateStream+b), so the replicates do not depend on how many
// run at once. They run on every core; progress, when not nil, is called
// with the replicates done, one call at a time.
//
// A replicate of GIBU is solved by Newton's method from θ̂ (a
// replicate's MLE lies a few standard errors from it), preconditioned by
// the Hessian formed once at θ̂ (replicator), when that Hessian covers
// θ̂'s support; the other estimators, and GIBU beyond, start where the
// estimator does. Each stops at the certified gap max(GapTol, 10⁻³/n)
// nats per report: in any direction its distance to the replicate's MLE
// is then about √(2nδ) ≤ 4.5% of the sampling standard deviation (the
// log-likelihood of n reports falls by a half per standard deviation).
// The corrected EM keeps the estimate's α (est.Alpha) instead of
// choosing it again.
//
// It refuses a PUM's reports, whose law depends on each user's personal
// cells rather than on θ̂ alone.
func Bootstrap(ctx context.Context, method Method, s *Study, mechs []Mechanism, g *Groups, est *Estimate,
	opt EstimateOptions, b int, seed uint64, progress func(done int)) ([][]float64, error) {
	if b < 2 || b > MaxReplicates {
		return nil, fmt.Errorf("core: %d bootstrap replicates: want 2 to %d", b, MaxReplicates)
	}
	if j := personalizedUsed(mechs, g.Users); j >= 0 {
		return nil, fmt.Errorf("core: mechanism %s is personalized (pum): its reports depend on each user's personal cells, "+
			"which the estimate does not carry, so no bootstrap can redraw them", mechName(s, j))
	}
	k := len(est.Theta)
	if err := CheckMemory(fmt.Sprintf("keeping %d bootstrap replicates of %d symbols", b, k), 8*float64(b)*float64(k)); err != nil {
		return nil, err
	}
	r, err := newReplicator(ctx, method, s, mechs, g, est, opt)
	if err != nil {
		return nil, err
	}
	out := make([][]float64, b)
	i, err := eachDone(ctx, b, func(i int) (err error) {
		out[i], err = r.replicate(ctx, rand.New(rand.NewPCG(seed, replicateStream+uint64(i))))
		return err
	}, progress)
	if i >= 0 {
		return nil, fmt.Errorf("core: bootstrap replicate %d: %w", i+1, err)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachDone runs f(i) for every i < n on every core (linalg.Each),
// skipping the rest once ctx is done, and calls progress, when not
// nil, with the count done, one call at a time: the loop of the
// bootstrap's replicates and of the profile's symbols. It returns ctx's
// error with index −1, else the lowest i whose f failed and its error
// (−1 and nil when none did).
func eachDone(ctx context.Context, n int, f func(i int) error, progress func(done int)) (int, error) {
	errs := make([]error, n)
	var done atomic.Int64
	var mu sync.Mutex
	linalg.Each(n, func(i int) {
		if ctx.Err() != nil {
			errs[i] = ctx.Err()
			return
		}
		errs[i] = f(i)
		if progress != nil {
			mu.Lock()
			progress(int(done.Add(1)))
			mu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return -1, err
	}
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return -1, nil
}

// A replicator draws and estimates bootstrap replicates of one estimate.
// For GIBU it keeps what every replicate shares: the likelihood columns
// of the reports θ̂ can draw, and the negated Hessian formed at θ̂, which
// preconditions each replicate's Newton steps from θ̂ (a replicate's MLE
// lies within a few standard deviations of it, where EM would crawl).
type replicator struct {
	method Method
	s      *Study
	mechs  []Mechanism
	users  []int
	theta  []float64 // θ̂
	draw   *drawer   // draws reports from θ̂
	opt    EstimateOptions
	mle    bool // GIBU: replicates by Newton's method from θ̂
	lik    likelihoods
	hess   faceHessian
}

func newReplicator(ctx context.Context, method Method, s *Study, mechs []Mechanism, g *Groups, est *Estimate, opt EstimateOptions) (*replicator, error) {
	r := &replicator{method: method, s: s, mechs: mechs, users: g.Users, theta: est.Theta, draw: newDrawer(mechs, g.Users, est.Theta),
		opt: replicateOptions(g, est, opt)}
	if info := lookup(method); info == nil || info.run == nil || method != MethodGIBU && info.Alias != MethodGIBU {
		return r, nil
	}
	if _, _, ok := oneClosedForm(mechs, g); ok {
		return r, nil // the closed form, certified in a step
	}
	r.mle = true
	r.lik = newLikelihoodCache(mechs, g.Users)
	m, err := newModelWith(mechs, g, s, ColumnBudget, r.lik)
	if err != nil {
		return nil, err
	}
	if err := r.borrowHessian(ctx, m); err != nil {
		return nil, err
	}
	// Without a Hessian over θ̂'s support, Newton's steps from θ̂ solve by
	// conjugate gradients on faces of thousands of symbols, slower than
	// GIBU's own EM and Newton from the uniform start (NYC's 9,024 cells:
	// 40 s a replicate against 10 s).
	for x, v := range r.theta {
		if v > bindingTol && (r.hess.h == nil || r.hess.pos[x] < 0) {
			r.mle = false
			break
		}
	}
	return r, nil
}

// borrowHessian forms the negated Hessian of the estimate's own
// likelihood at θ̂ and keeps it for the replicates (borrowedHessian).
func (r *replicator) borrowHessian(ctx context.Context, m emModel) error {
	h, err := borrowedHessian(ctx, m, r.theta)
	r.hess = h
	return err
}

// borrowedHessian returns the negated Hessian of m's likelihood at θ
// formed densely, on every symbol when that is faceable, else on θ's
// support and the symbols whose gradient is highest, as a borrowed
// one: a preconditioner of the conjugate gradients of other problems
// near θ (a bootstrap's replicates, a profile's pinned likelihoods)
// wherever their free face lies within it. It is empty when m cannot
// restrict its likelihood.
func borrowedHessian(ctx context.Context, m emModel, theta []float64) (faceHessian, error) {
	var hess faceHessian
	fm, ok := m.(facer)
	if !ok {
		return hess, nil
	}
	k := len(theta)
	grad := make([]float64, k)
	fm.gradient(theta, grad)
	order := make([]int, k)
	for x := range order {
		order[x] = x
	}
	// Support first, then by gradient: the symbols a replicate's face
	// most likely holds.
	slices.SortStableFunc(order, func(a, b int) int {
		ia, ib := theta[a] > bindingTol, theta[b] > bindingTol
		switch {
		case ia != ib && ia:
			return -1
		case ia != ib:
			return 1
		}
		return cmp.Compare(grad[b], grad[a])
	})
	f := k
	for f > 0 && !faceable(fm.reports(), f, fm.productWork()) {
		f = min(f*3/4, faceMax)
	}
	if f == 0 {
		return hess, nil
	}
	face := slices.Clone(order[:f])
	slices.Sort(face)
	built, err := hess.build(ctx, fm, theta, face)
	if err != nil || !built {
		return faceHessian{}, err
	}
	hess.x, hess.borrowed = nil, true
	return hess, nil
}

// replicate draws one replicate's reports with rng and returns its
// estimate.
func (r *replicator) replicate(ctx context.Context, rng *rand.Rand) ([]float64, error) {
	g, err := r.draw.draw(ctx, rng)
	if err != nil {
		return nil, err
	}
	if !r.mle {
		opt := r.opt
		if r.method == MethodGIBU {
			opt.EM.Init = warmStart(r.theta)
		}
		e, err := reconstruct(ctx, r.method, r.s, r.mechs, g, opt, false)
		if err != nil {
			return nil, err
		}
		return e.Theta, nil
	}
	m, err := newModelWith(r.mechs, g, r.s, ColumnBudget, r.lik)
	if err != nil {
		return nil, err
	}
	tol := r.opt.EM.GapTol
	if cm, ok := m.(curvedModel); ok {
		theta := slices.Clone(r.theta)
		face := r.hess
		face.last.pr = nil
		_, gap, _, err := polishFrom(ctx, cm, theta, tol, 0, r.opt.EM.withDefaults().MaxIter, nil, nil, &face)
		if err != nil {
			return nil, err
		}
		if gap <= tol {
			return theta, nil
		}
	}
	// Newton's method stalled (or the model has none): EM from the warm
	// start, then Newton's method as GIBU runs them.
	e, err := runEM(ctx, m, r.opt.EM)
	if err != nil {
		return nil, err
	}
	if !e.Converged {
		return nil, fmt.Errorf("core: the replicate's MLE was not certified (gap %.2g > %.2g)", e.Gap, tol)
	}
	return e.Theta, nil
}

// warmStart returns the start of a replicate's EM when Newton's method
// cannot start from θ̂ (newReplicator): 0.99·θ̂ + 0.01/K, positive
// everywhere as EM's start must be where the replicate's MLE may be.
// The MLE is GIBU's whatever the start (the likelihood is concave); from
// here EM's 300 steps reach a smaller gap than from the uniform start,
// and Newton's steps after them are fewer: on New York (FW Table 7,
// 200,000 reports) 1.21–1.23 s a replicate against 1.44 s.
func warmStart(theta []float64) []float64 {
	w := make([]float64, len(theta))
	u := 0.01 / float64(len(theta))
	for x, t := range theta {
		w[x] = 0.99*t + u
	}
	return w
}

// newLikelihoodCache returns likelihoods that computes each symbol
// report's column of mechanism j once, for all the replicates, when the
// mechanism's outputs × inputs fit denseOutputs; bit reports and larger
// channels are computed each time.
func newLikelihoodCache(mechs []Mechanism, users []int) likelihoods {
	cache := make([][]cachedColumn, len(mechs))
	for j, m := range mechs {
		c, ok := m.(Channel)
		if ok && users[j] > 0 && float64(c.Outputs())*float64(c.Inputs()) <= denseOutputs {
			cache[j] = make([]cachedColumn, c.Outputs())
		}
	}
	return func(j int, rep Report) ([]float64, float64) {
		if z := rep.Symbol; z >= 0 && z < len(cache[j]) {
			c := &cache[j][z]
			c.once.Do(func() { c.col, c.scale = mechs[j].Likelihood(nil, rep) })
			return c.col, c.scale
		}
		return mechs[j].Likelihood(nil, rep)
	}
}

// cachedColumn is one report's likelihood column, computed once.
type cachedColumn struct {
	once  sync.Once
	col   []float64
	scale float64
}

// replicateOptions returns the options of a bootstrap replicate of est:
// the estimator's own start, the replicates' gap (see Bootstrap), α
// fixed, no progress.
func replicateOptions(g *Groups, est *Estimate, opt EstimateOptions) EstimateOptions {
	opt.EM.Progress, opt.EM.Inner, opt.EM.Init = nil, nil, nil
	opt.EM.GapTol = math.Max(opt.EM.withDefaults().GapTol, 1e-3/float64(g.N()))
	opt.CEM.Alpha, opt.CEM.Fixed = est.Alpha, true
	return opt
}

// An alias table draws a symbol with probability proportional to its
// weight in O(1) (Walker 1977, Vose's construction, 1991): column i is
// i with probability prob[i], else alias[i]. Drawing each of a
// replicate's reports by binary search over the running sums took a
// twelfth of a bootstrap's time; the tables are built once, θ̂ and its
// output laws being the same in every replicate.
type aliasTable struct {
	prob  []float64
	alias []int32
}

// newAliasTable returns the table of weights w ≥ 0, not all 0.
func newAliasTable(w []float64) *aliasTable {
	k := len(w)
	t := &aliasTable{prob: make([]float64, k), alias: make([]int32, k)}
	total := 0.0
	for _, v := range w {
		total += math.Max(v, 0)
	}
	scaled := make([]float64, k)
	var small, large []int32
	for i, v := range w {
		scaled[i] = math.Max(v, 0) * float64(k) / total
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		l, g := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t.prob[l], t.alias[l] = scaled[l], g
		scaled[g] -= 1 - scaled[l]
		if scaled[g] < 1 {
			large, small = large[:len(large)-1], append(small, g)
		}
	}
	// What is left has weight 1 up to rounding.
	for _, i := range append(small, large...) {
		t.prob[i], t.alias[i] = 1, i
	}
	return t
}

// draw returns a symbol drawn with rng.
func (t *aliasTable) draw(rng *rand.Rand) int {
	u := rng.Float64() * float64(len(t.prob))
	i := int(u)
	if i >= len(t.prob) {
		i = len(t.prob) - 1
	}
	if u-float64(i) < t.prob[i] {
		return i
	}
	return int(t.alias[i])
}

// denseOutputs bounds the entries a channel without an operator is read
// for its output law: 4M, as ColumnBudget.
const denseOutputs = 1 << 22

// A drawer draws the grouped reports of users[j] users of each
// mechanism j whose data follow θ. A symbol channel with an operator,
// or small enough to read, draws its reports' counts from the law of
// its output, θA, which is the same draw at the cost of one search a
// report; other mechanisms sanitise each user's datum.
type drawer struct {
	mechs   []Mechanism
	users   []int
	data    *aliasTable
	outputs []*aliasTable // nil for a mechanism that sanitises each datum
}

func newDrawer(mechs []Mechanism, users []int, theta []float64) *drawer {
	d := &drawer{mechs: mechs, users: users, data: newAliasTable(theta), outputs: make([]*aliasTable, len(mechs))}
	for j, m := range mechs {
		if users == nil || users[j] > 0 {
			if q := outputLaw(m, theta); q != nil {
				d.outputs[j] = newAliasTable(q)
			}
		}
	}
	return d
}

// A ReportDrawer draws the grouped reports of a population whose data
// follow a distribution θ, each user's datum drawn from θ and sanitised
// by her mechanism, as a parametric bootstrap's replicates are drawn
// (Bootstrap): a symbol channel's report counts from the law of its
// output, θA. It plans a deployment: the reports of any number of users
// of each mechanism, from the truth.
type ReportDrawer struct{ d *drawer }

// NewReportDrawer returns the drawer of reports through mechs of data
// that follow theta. It refuses a personalized mechanism (PUM), whose
// reports depend on each user's personal cells as well.
func NewReportDrawer(mechs []Mechanism, theta []float64) (*ReportDrawer, error) {
	all := make([]int, len(mechs))
	for j := range all {
		all[j] = 1
	}
	if err := checkMechs(mechs, all, len(theta)); err != nil {
		return nil, err
	}
	if j := personalizedUsed(mechs, all); j >= 0 {
		return nil, fmt.Errorf("core: mechanism %d is personalized (pum): its reports depend on each user's personal cells, not on the distribution alone", j+1)
	}
	return &ReportDrawer{newDrawer(mechs, nil, theta)}, nil
}

// Draw draws the reports of users[j] users of each mechanism j with rng;
// ctx cancels. users has one count a mechanism, each ≥ 0.
func (r *ReportDrawer) Draw(ctx context.Context, rng *rand.Rand, users []int) (*Groups, error) {
	if len(users) != len(r.d.mechs) {
		return nil, fmt.Errorf("core: %d user counts for %d mechanisms", len(users), len(r.d.mechs))
	}
	n := 0
	for _, u := range users {
		if u < 0 {
			return nil, fmt.Errorf("core: %d users of a mechanism", u)
		}
		n += u
	}
	if n > MaxUsers {
		return nil, fmt.Errorf("core: %d users are more than the %d a simulation draws", n, MaxUsers)
	}
	d := *r.d
	d.users = users
	return d.draw(ctx, rng)
}

// draw draws one set of grouped reports with rng; ctx cancels.
func (d *drawer) draw(ctx context.Context, rng *rand.Rand) (*Groups, error) {
	g := newGroups(len(d.mechs))
	index := make(map[Group]int)
	for j, m := range d.mechs {
		n := d.users[j]
		if n == 0 {
			continue
		}
		if out := d.outputs[j]; out != nil {
			counts := make([]int, len(out.prob))
			for u := range n {
				if u%65536 == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
				counts[out.draw(rng)]++
			}
			for z, c := range counts {
				if c > 0 {
					g.add(index, j, SymbolReport(z), c)
				}
			}
			continue
		}
		for u := range n {
			if u%4096 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			g.add(index, j, Draw(m, rng, d.data.draw(rng)), 1)
		}
	}
	if g.N() == 0 {
		return nil, errors.New("core: no reports to draw")
	}
	g.sort()
	return g, nil
}

// outputLaw returns θA, the law of a symbol channel's report when its
// input follows θ, or nil when m is not such a channel or is too large
// to read entry by entry without an operator.
func outputLaw(m Mechanism, theta []float64) []float64 {
	c, ok := m.(Channel)
	if !ok {
		return nil
	}
	if _, ok := m.(Sampler); !ok {
		return nil
	}
	if op, ok := m.(operator); ok {
		q := op.MulVecTo(nil, true, theta)
		for z, v := range q {
			q[z] = math.Max(v, 0) // the FFT's rounding, ~1e−13 of the mass
		}
		return q
	}
	k, o := c.Inputs(), c.Outputs()
	if float64(k)*float64(o) > denseOutputs {
		return nil
	}
	q := make([]float64, o)
	for x, p := range theta {
		if p <= 0 {
			continue
		}
		for z := range o {
			q[z] += p * c.Prob(x, z)
		}
	}
	return q
}

// Quantile returns the q-quantile of sorted values, 0 ≤ q ≤ 1 (type 7
// of Hyndman and Fan 1996, R's default: linear between the order
// statistics).
func Quantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// sortedAt returns replicate values of symbol x, sorted, in dst.
func sortedAt(dst []float64, reps [][]float64, x int) []float64 {
	dst = dst[:0]
	for _, r := range reps {
		dst = append(dst, r[x])
	}
	slices.Sort(dst)
	return dst
}
