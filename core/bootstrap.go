package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
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
// Replicate b is drawn from its own generator (PCG seeded with
// opt.Seed and stream replicateStream+b), so the replicates do not depend
// on how many run at once. They run on every core; opt.Progress, when
// not nil, is called with the replicates done.
//
// Each replicate of an iterative estimator starts from θ̂ mixed with a
// hundredth of the uniform distribution (a warm start that EM can leave
// wherever θ̂ is zero) and stops at the certified gap
// max(GapTol, 10⁻³/n) nats per report: in any direction its distance to
// the replicate's MLE is then about √(2nδ) ≤ 4.5% of the sampling
// standard deviation (the log-likelihood of n reports falls by a half
// per standard deviation). The corrected EM keeps the estimate's α
// (est.Alpha) instead of choosing it again.
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
	errs := make([]error, b)
	var done atomic.Int64
	var mu sync.Mutex
	linalg.Each(b, func(i int) {
		if ctx.Err() != nil {
			errs[i] = ctx.Err()
			return
		}
		out[i], errs[i] = r.replicate(ctx, rand.New(rand.NewPCG(seed, replicateStream+uint64(i))))
		if progress != nil {
			mu.Lock()
			progress(int(done.Add(1)))
			mu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("core: bootstrap replicate %d: %w", i+1, err)
		}
	}
	return out, nil
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
	cum    []float64 // its running sums
	opt    EstimateOptions
	mle    bool // GIBU: replicates by Newton's method from θ̂
	lik    likelihoods
	hess   faceHessian
}

func newReplicator(ctx context.Context, method Method, s *Study, mechs []Mechanism, g *Groups, est *Estimate, opt EstimateOptions) (*replicator, error) {
	r := &replicator{method: method, s: s, mechs: mechs, users: g.Users, theta: est.Theta, cum: cumulative(est.Theta),
		opt: replicateOptions(method, mechs, g, est, opt)}
	if info := lookup(method); info == nil || info.run == nil || method != MethodGIBU && info.Alias != MethodGIBU {
		return r, nil
	}
	if _, _, ok := oneClosedForm(mechs, g); ok {
		return r, nil // the closed form, certified in a step
	}
	r.mle = true
	r.lik = newLikelihoodCache(mechs, g.Users)
	m, err := newModelWith(mechs, g, s, columnBudget, r.lik)
	if err != nil {
		return nil, err
	}
	if err := r.borrowHessian(ctx, m); err != nil {
		return nil, err
	}
	return r, nil
}

// borrowHessian forms the negated Hessian of the estimate's own
// likelihood at θ̂ densely, on every symbol when that is faceable, else
// on θ̂'s support and the symbols whose gradient is highest, and keeps it
// for the replicates as a borrowed one: a preconditioner of their
// conjugate gradients wherever their free face lies within it.
func (r *replicator) borrowHessian(ctx context.Context, m emModel) error {
	fm, ok := m.(facer)
	if !ok {
		return nil
	}
	k := len(r.theta)
	grad := make([]float64, k)
	fm.gradient(r.theta, grad)
	order := make([]int, k)
	for x := range order {
		order[x] = x
	}
	// Support first, then by gradient: the symbols a replicate's face
	// most likely holds.
	slices.SortStableFunc(order, func(a, b int) int {
		ia, ib := r.theta[a] > bindingTol, r.theta[b] > bindingTol
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
		return nil
	}
	face := slices.Clone(order[:f])
	slices.Sort(face)
	built, err := r.hess.build(ctx, fm, r.theta, face)
	if err != nil || !built {
		return err
	}
	r.hess.x, r.hess.borrowed = nil, true
	return nil
}

// replicate draws one replicate's reports with rng and returns its
// estimate.
func (r *replicator) replicate(ctx context.Context, rng *rand.Rand) ([]float64, error) {
	g, err := drawGroups(ctx, rng, r.mechs, r.users, r.theta, r.cum)
	if err != nil {
		return nil, err
	}
	if !r.mle {
		e, err := reconstruct(ctx, r.method, r.s, r.mechs, g, r.opt, false)
		if err != nil {
			return nil, err
		}
		return e.Theta, nil
	}
	m, err := newModelWith(r.mechs, g, r.s, columnBudget, r.lik)
	if err != nil {
		return nil, err
	}
	tol := r.opt.EM.GapTol
	if cm, ok := m.(curvedModel); ok {
		theta := slices.Clone(r.theta)
		face := r.hess
		face.last.pr = nil
		_, gap, _, err := polishFrom(ctx, cm, theta, tol, 0, r.opt.EM.withDefaults().MaxIter, nil, nil, face)
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
// a warm start and the replicates' gap (see Bootstrap), α fixed, no
// progress.
func replicateOptions(method Method, mechs []Mechanism, g *Groups, est *Estimate, opt EstimateOptions) EstimateOptions {
	opt.EM.Progress, opt.EM.Inner = nil, nil
	opt.EM.GapTol = math.Max(opt.EM.withDefaults().GapTol, 1e-3/float64(g.N()))
	if _, _, ok := oneClosedForm(mechs, g); !ok || method != MethodGIBU && method != MethodEM {
		k := len(est.Theta)
		warm := make([]float64, k)
		for x, v := range est.Theta {
			warm[x] = 0.99*math.Max(v, 0) + 0.01/float64(k)
		}
		opt.EM.Init = warm
	}
	if est.Alpha > 0 {
		opt.CEM.Alpha = est.Alpha
	}
	return opt
}

// cumulative returns the running sums of p.
func cumulative(p []float64) []float64 {
	cum := make([]float64, len(p))
	acc := 0.0
	for i, v := range p {
		acc += math.Max(v, 0)
		cum[i] = acc
	}
	return cum
}

// pick returns the symbol of a uniform draw against the running sums
// cum: the first whose sum exceeds u·total, never a symbol of mass 0.
func pick(rng *rand.Rand, cum []float64) int {
	u := rng.Float64() * cum[len(cum)-1]
	return sort.Search(len(cum), func(i int) bool { return cum[i] > u })
}

// denseOutputs bounds the entries a channel without an operator is read
// for its output law: 4M, as columnBudget.
const denseOutputs = 1 << 22

// drawGroups draws the grouped reports of users[j] users of each
// mechanism j whose data follow θ (running sums cum). A symbol channel
// with an operator, or small enough to read, draws its reports' counts
// from the law of its output, θA, which is the same draw at a cost of
// one product and n^A searches; other mechanisms sanitise each user's
// datum.
func drawGroups(ctx context.Context, rng *rand.Rand, mechs []Mechanism, users []int, theta, cum []float64) (*Groups, error) {
	g := newGroups(len(mechs))
	index := make(map[Group]int)
	for j, m := range mechs {
		n := users[j]
		if n == 0 {
			continue
		}
		if q := outputLaw(m, theta); q != nil {
			counts := make([]int, len(q))
			qc := cumulative(q)
			for u := range n {
				if u%65536 == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
				counts[pick(rng, qc)]++
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
			g.add(index, j, Draw(m, rng, pick(rng, cum)), 1)
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
