package core

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/privmap/privmap/internal/linalg"
)

// IntervalProfile names profile-likelihood intervals (Profile), for GIBU's
// estimates, on the boundary of the simplex as inside it.
const IntervalProfile IntervalMethod = "profile"

// Profile returns the profile-likelihood intervals of GIBU's estimate
// θ̂ of the reports g at level L (Venzon and Moolgavkar 1988; Pawitan
// 2001, §3.4 and §9.7). Symbol x's interval is the set of values t
// whose best likelihood with θ_x = t falls short of the MLE's by at most
// half the L-quantile of χ²₁:
//
//	{ t : 2n·(L(θ̂) − max_{θ ∈ Δ, θ_x = t} L(θ)) ≤ z²_{(1+L)/2} },
//
// with L the log-likelihood a report of CEM eq. 14 and n the reports.
// Unlike the bootstrap's percentile interval, which draws replicates
// from θ̂ and so rarely lifts a symbol θ̂ puts at 0 (the MLE of a wide
// planar channel leaves most cells at 0, a one-person cell among them),
// it asks how far the data let the symbol rise: at the simplex's
// boundary the set is [0, t⁺], and moving mass into x costs likelihood
// at the rate 1 − G_x of its gradient's shortfall (the KKT conditions).
// The band takes z at Šidák's level L^{1/K} for each of the K symbols,
// which covers them all with probability at least L when the deviances
// are jointly as χ²₁ (Šidák 1967).
//
// Each end is found by Lagrange's method: the MLE of the reports with ω
// pseudo-reports of "x" (the upper end) or of "not x" (the lower end)
// is the best θ with its own θ_x (see pinned), and ω is searched until
// 2n·(L(θ̂) − L(θ_ω)) crosses z², each solve by GIBU's Newton's method
// from the last. The end returned is the nearest θ_x certified outside
// the set — its likelihood plus the solve's certified gap falls short —
// so each interval contains the exact profile interval to within
// rounding; the search stops when the ends bracketing it differ by at
// most 1% of the half-width (profileRel). TV and MaxError are NaN: a
// profile bounds symbols, not distances.
//
// It refuses a PUM's reports (their likelihood depends on personal
// cells) and an estimate whose certified gap exceeds profileGap.
// progress, when not nil, is called with the symbols done, one call at a
// time; ctx cancels.
func Profile(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, theta []float64, level float64, progress func(done int)) (*Intervals, error) {
	if err := checkLevel(level); err != nil {
		return nil, err
	}
	if j := personalizedUsed(mechs, g.Users); j >= 0 {
		return nil, pumNeedsULDP(s, j)
	}
	k := len(theta)
	p, err := newProfiler(ctx, mechs, g, s, theta, level)
	if err != nil {
		return nil, err
	}
	z, zb, _, _ := profileDrops(level, k, float64(g.N()))
	iv := &Intervals{Level: level, Method: IntervalProfile, Critical: zb,
		Lo: make([]float64, k), Hi: make([]float64, k), BandLo: make([]float64, k), BandHi: make([]float64, k), SE: make([]float64, k),
		TV: math.NaN(), MaxError: math.NaN()}
	x, err := eachDone(ctx, k, func(x int) error { return p.run(ctx, x, iv) }, progress)
	if x >= 0 {
		return nil, fmt.Errorf("core: profile interval of symbol %d: %w", x+1, err)
	}
	if err != nil {
		return nil, err
	}
	// The half-width in z's units, as a standard error: the uncertainty
	// maps' scale.
	for x := range iv.SE {
		iv.SE[x] = (iv.Hi[x] - iv.Lo[x]) / (2 * z)
	}
	return iv, nil
}

// newProfiler returns the profiler of GIBU's estimate θ̂ of the
// reports g at level: the reports' model, L(θ̂) and its gradient, whose
// gap must be at most profileGap, and the Hessian at θ̂ every search
// borrows.
func newProfiler(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, theta []float64, level float64) (*profiler, error) {
	base, ll, grad, _, err := certifiedMLE(mechs, g, s, theta, IntervalProfile)
	if err != nil {
		return nil, err
	}
	return profilerOf(ctx, base, ll, grad, mechs, g, s, theta, level)
}

// certifiedMLE returns the reports' model with a Hessian, for the
// intervals named what, and at θ̂ its log-likelihood, gradient and gap,
// refusing an estimate whose gap exceeds profileGap.
func certifiedMLE(mechs []Mechanism, g *Groups, s *Study, theta []float64, what IntervalMethod) (base curvedModel, ll float64, grad []float64, gap float64, err error) {
	if base, err = newCurvedModel(mechs, g, s, what); err != nil {
		return nil, 0, nil, 0, err
	}
	grad = make([]float64, len(theta))
	ll, gap = base.gradient(theta, grad)
	if !(gap <= profileGap) {
		return nil, 0, nil, 0, fmt.Errorf("core: profile intervals need the certified MLE: the estimate's gap is %.2g nats a report (at most %.2g)", gap, profileGap)
	}
	return base, ll, grad, math.Max(gap, 0), nil
}

// profilerOf returns the profiler at θ̂ of the model base, L(θ̂) = ll
// and its gradient grad (certifiedMLE's), with the Hessian at θ̂ every
// search borrows.
func profilerOf(ctx context.Context, base curvedModel, ll float64, grad []float64, mechs []Mechanism, g *Groups, s *Study, theta []float64, level float64) (*profiler, error) {
	_, _, cell, band := profileDrops(level, len(theta), float64(g.N()))
	hess, err := borrowedHessian(ctx, base, theta)
	if err != nil {
		return nil, err
	}
	p := &profiler{mechs: mechs, g: g, s: s, theta: theta, ll: ll, grad: grad, hess: hess,
		cell: cell, band: band, pool: make(chan curvedModel, runtime.GOMAXPROCS(0))}
	p.pool <- base
	return p, nil
}

// run sets symbol x's interval and band in iv on a model of the pool;
// the workers of eachDone call it at once.
func (p *profiler) run(ctx context.Context, x int, iv *Intervals) error {
	m, err := p.model()
	if err != nil {
		return err
	}
	defer func() { p.pool <- m }()
	return p.symbol(ctx, m, x, iv)
}

// profileDrops returns z at the level for each of k symbols' intervals,
// zb at Šidák's level for the band (at least z), and the drops of the
// normalised log-likelihood over n reports that bound the profile sets,
// z²/2n and zb²/2n.
func profileDrops(level float64, k int, n float64) (z, zb, cell, band float64) {
	z = distuv.UnitNormal.Quantile((1 + level) / 2)
	zb = math.Max(sidak(level, k), z)
	return z, zb, z * z / (2 * n), zb * zb / (2 * n)
}

// profileGap bounds the certified gap of an estimate Profile takes:
// the deviances are measured from L(θ̂), which is then within this of
// the maximum (GIBU certifies 1e−11).
const profileGap = 1e-8

// profileRel is the precision of a profile end: the search stops when
// the values certified inside and outside differ by at most this share
// of the end's distance from θ̂_x, and returns the outside one.
const profileRel = 0.01

// profileEvals bounds the solves of one end's search.
const profileEvals = 40

// newCurvedModel returns the reports' model with a Hessian, which the
// intervals named what (profile, fisher) need.
func newCurvedModel(mechs []Mechanism, g *Groups, s *Study, what IntervalMethod) (curvedModel, error) {
	m, err := newModel(mechs, g, s, ColumnBudget)
	if err != nil {
		return nil, err
	}
	cm, ok := m.(curvedModel)
	if !ok {
		return nil, fmt.Errorf("core: %s intervals: the likelihood of these reports has no Hessian", what)
	}
	return cm, nil
}

// A profiler finds the ends of each symbol's profile interval.
type profiler struct {
	mechs []Mechanism
	g     *Groups
	s     *Study
	theta []float64 // θ̂
	ll    float64   // L(θ̂)
	grad  []float64 // ∇L(θ̂)
	// hess is the reports' Hessian at θ̂, every search's preconditioner
	// until it forms its own (borrowedHessian).
	hess faceHessian
	// cell and band are the likelihood drops z²/2n of the symbol's
	// interval and of the band.
	cell, band float64
	// pool holds the models the workers solve on, made holds how many
	// were made (model).
	pool chan curvedModel
	made atomic.Int32
}

// model takes a model from the pool, or makes one while fewer than the
// pool holds have been made: each worker solves on its own buffers.
func (p *profiler) model() (curvedModel, error) {
	select {
	case m := <-p.pool:
		return m, nil
	default:
	}
	if int(p.made.Add(1)) < cap(p.pool) {
		return newCurvedModel(p.mechs, p.g, p.s, IntervalProfile)
	}
	return <-p.pool, nil
}

// symbol sets symbol x's interval and band in iv.
func (p *profiler) symbol(ctx context.Context, m curvedModel, x int, iv *Intervals) error {
	t := p.theta[x]
	var err error
	hxx := p.curvature(m, x)
	up := &profileSearch{p: p, m: &pinned{base: m, x: x, up: true}, face: p.hess,
		slope: math.Max(1-p.grad[x], 0), curve: hxx / 2}
	if iv.Hi[x], err = up.end(ctx, p.cell); err != nil {
		return err
	}
	if iv.BandHi[x], err = up.end(ctx, p.band); err != nil {
		return err
	}
	if t <= bindingTol {
		// θ̂_x = 0 is in the set, the lowest value there is.
		return nil
	}
	// θ_x = 0 is in the set when the estimate without x, a θ with
	// θ_x = 0, loses no more than the drop.
	off := slices.Clone(p.theta)
	off[x] = 0
	floats.Scale(1/floats.Sum(off), off)
	l0, _ := m.gradient(off, make([]float64, len(off)))
	down := &profileSearch{p: p, m: &pinned{base: m, x: x}, face: p.hess, curve: hxx / 2}
	if p.ll-l0 > p.cell {
		if iv.Lo[x], err = down.end(ctx, p.cell); err != nil {
			return err
		}
	}
	if p.ll-l0 > p.band {
		if iv.BandLo[x], err = down.end(ctx, p.band); err != nil {
			return err
		}
	}
	return nil
}

// curvature returns −∂²L/∂θ_x² at θ̂, an upper bound on the profile's
// curvature 2a at θ̂_x (the other symbols' adjustment only flattens
// it): the first solve then aims within the end.
func (p *profiler) curvature(m curvedModel, x int) float64 {
	k := len(p.theta)
	e, h := make([]float64, k), make([]float64, k)
	e[x] = 1
	m.at(p.theta)
	m.hessVec(e, h)
	return h[x]
}

// A profileSearch searches one side of one symbol's profile: the ω of
// the pseudo-reports whose MLE θ_ω lies at the drop, keeping what its
// solves learnt for the next end (the band's, after the interval's).
//
// Along Lagrange's path the profile's slope is known at every solve:
// θ_ω maximises L_p(t) + ω·log t (up) or + ω·log(1 − t), so with
// d = |t − θ̂_x| and f(d) = L(θ̂) − L_p(t) the drop,
//
//	f′(d) = ω/t up,   ω/(1 − t) down.
//
// f is convex (L_p is concave), 0 at d = 0 with slope b = 1 − G_x (the
// KKT shortfall of a symbol at 0; 0 inside). Each next ω is that of
// the model f(d) = b·d + a·d² at its target, a fitted to the last two
// solves' slopes (to the first's and b at first), aimed half a percent
// beyond the drop after a solve inside and as much within after one
// outside (aim); where the model leaves the bracket of ω known inside
// and outside, regula falsi in log ω takes over, as it does after two
// solves in a row on one side (where θ_ω sits at θ_x = 0, say, the
// slope is no guide). Three or four solves an end are typical.
type profileSearch struct {
	p    *profiler
	m    *pinned
	last []float64 // the last solve's θ_ω, the next one's start
	face faceHessian
	// slope is b; curve the last fitted a, 0 before any.
	slope, curve float64
	// d1, f1 and s1 are the last solve's distance from θ̂_x, drop and
	// slope f′(d₁); s1 is 0 before any.
	d1, f1, s1 float64
}

// profileAim is how far beyond or within the drop a search aims, as a
// share of it: the profile is nearly quadratic there, so its ends
// land within about a quarter of this of the true end in d.
const profileAim = 0.005

// end returns the end of the profile set {t : L(θ̂) − L_p(t) ≤ drop} on
// the search's side: the nearest θ_x certified outside it, or the
// simplex's edge (1 up, 0 down) when none is.
func (ps *profileSearch) end(ctx context.Context, drop float64) (float64, error) {
	t0 := ps.p.theta[ps.m.x]
	edge := 0.0
	if ps.m.up {
		edge = 1
	}
	br := &omegaBracket{hi: math.Inf(1), fLo: -drop, fHi: math.NaN(), tIn: t0, tOut: edge}
	inside := true // the last solve's side
	same := 0      // solves in a row on the same side
	for range profileEvals {
		omega := ps.aim(drop, inside)
		if omega <= br.lo || omega >= br.hi || same >= 2 {
			omega = br.next()
		}
		t, f, gap, err := ps.measure(ctx, omega, drop)
		if err != nil {
			return 0, err
		}
		ps.learn(omega, t, f)
		was := inside
		inside = br.add(omega, t, f, gap, drop)
		if same++; inside != was {
			same = 0
		}
		if math.IsInf(br.hi, 1) && math.Abs(t-edge) <= bindingTol {
			return edge, nil // the edge itself is inside
		}
		if !math.IsInf(br.hi, 1) && math.Abs(br.tOut-br.tIn) <= profileRel*math.Abs(br.tOut-t0)+bindingTol {
			return br.tOut, nil
		}
	}
	if math.IsInf(br.hi, 1) {
		return edge, nil
	}
	return br.tOut, nil
}

// measure solves for θ_ω and returns its θ_x, its drop f = L(θ̂) −
// L(θ_ω) (at least L(θ̂) − L_p(θ_x)) and the solve's certified gap,
// solving again more closely when the gap leaves undecided on which
// side of drop the profile lies.
func (ps *profileSearch) measure(ctx context.Context, omega, drop float64) (t, f, gap float64, err error) {
	t, ll, gap, err := ps.solve(ctx, omega, drop, math.Inf(1))
	if err != nil {
		return 0, 0, 0, err
	}
	if f = ps.p.ll - ll; f > drop && f-(1+omega)*gap <= drop {
		if t, ll, gap, err = ps.solve(ctx, omega, drop, gap/100); err != nil {
			return 0, 0, 0, err
		}
		f = ps.p.ll - ll
	}
	return t, f, gap, nil
}

// learn keeps the solve at ω, θ_x = t with drop f for aim: its distance
// d from θ̂_x, f, the profile's slope there and the curvature fitted to
// the last two slopes (or to b from θ̂_x).
func (ps *profileSearch) learn(omega, t, f float64) {
	d := math.Abs(t - ps.p.theta[ps.m.x])
	// At the edge the constraint θ_x ≥ 0 holds θ_ω, and ω/(1 − t) is
	// no slope of the profile.
	if d == 0 || t <= bindingTol {
		return
	}
	slope := omega / t
	if !ps.m.up {
		slope = omega / (1 - t)
	}
	if ps.s1 > 0 && math.Abs(d-ps.d1) > 1e-3*d {
		ps.curve = math.Max((slope-ps.s1)/(2*(d-ps.d1)), 0)
	} else {
		ps.curve = math.Max((slope-ps.slope)/(2*d), 0)
	}
	ps.d1, ps.f1, ps.s1 = d, f, slope
}

// An omegaBracket is what a search knows: the largest ω whose θ_ω is
// inside the set and the smallest outside (+Inf while none is), their
// drops less the target, and the θ_x certified inside and outside
// nearest the end.
type omegaBracket struct {
	lo, hi, fLo, fHi float64
	tIn, tOut        float64
}

// add records the solve at ω (θ_x = t, drop f, certified gap) and
// reports whether it was inside. One undecided within its gap counts
// as outside for ω, but moves no certified end.
func (br *omegaBracket) add(omega, t, f, gap, drop float64) bool {
	switch {
	case f <= drop:
		br.lo, br.fLo, br.tIn = omega, f-drop, t
		return true
	case f-(1+omega)*gap > drop:
		br.hi, br.fHi, br.tOut = omega, f-drop, t
	default:
		br.hi, br.fHi = omega, f-drop
	}
	return false
}

// next returns the next ω of a search bracketed by lo (inside, f < 0)
// and hi (outside, f > 0; +Inf while unknown): growing fourfold until
// bracketed, then regula falsi in log ω, kept inside the middle 80% of
// the bracket so that it cannot stall at one end.
func (br *omegaBracket) next() float64 {
	switch {
	case math.IsInf(br.hi, 1) && br.lo == 0:
		return -2 * br.fLo // twice the drop, as aim starts
	case math.IsInf(br.hi, 1):
		return 4 * br.lo
	case br.lo == 0:
		return br.hi / 4
	}
	a, b := math.Log(br.lo), math.Log(br.hi)
	u := a + (b-a)*(-br.fLo)/(br.fHi-br.fLo)
	u = math.Min(math.Max(u, a+0.1*(b-a)), b-0.1*(b-a))
	return math.Exp(u)
}

// aim returns the ω of the next solve, aimed at the drop
// drop·(1 ± profileAim): beyond after a solve inside, within after one
// outside. After a solve at d₁ with drop f₁ and slope s₁ it takes
// Newton's step on f, d = d₁ + (target − f₁)/s₁ (f convex: from inside
// it lands beyond the target, from outside within it), and the slope
// there of the model f′(d) = b + 2a·d; before any, the model's own d.
func (ps *profileSearch) aim(drop float64, inside bool) float64 {
	target := drop * (1 + profileAim)
	if !inside {
		target = drop * (1 - profileAim)
	}
	a, b := ps.curve, ps.slope
	var d float64
	switch {
	case ps.s1 > 0:
		d = ps.d1 + (target-ps.f1)/ps.s1
	case a > 0:
		d = (math.Sqrt(b*b+4*a*target) - b) / (2 * a)
	case b > 0:
		d = target / b
	default:
		return 2 * drop
	}
	slope := b + 2*a*d
	if ps.s1 > 0 {
		slope = ps.s1 + 2*a*(d-ps.d1)
	}
	if !(d > 0) || !(slope > 0) {
		return 0 // none: the caller's bracket decides
	}
	t := ps.p.theta[ps.m.x] + d
	if !ps.m.up {
		t = ps.p.theta[ps.m.x] - d
	}
	t = math.Min(math.Max(t, 1e-300), 1)
	if ps.m.up {
		return t * slope
	}
	return (1 - t) * slope
}

// solve finds θ_ω, the MLE of the reports with ω pseudo-reports, from
// the last solve's point (θ̂ at first), to a gap small against drop
// and at most most,
// and returns its θ_x, its log-likelihood L(θ_ω) and the certified gap
// of the pinned likelihood.
func (ps *profileSearch) solve(ctx context.Context, omega, drop, most float64) (t, ll, gap float64, err error) {
	m := ps.m
	m.omega = omega
	if ps.last == nil {
		ps.last = slices.Clone(ps.p.theta)
	}
	theta := ps.last
	if m.share(theta) <= 0 {
		// θ̂_x = 0: start from a little mass at x.
		floats.Scale(1-drop, theta)
		theta[m.x] += drop
	}
	// Small against the drop, and against the gap at the start: a solve
	// for an ω near the last one's must move θ as far as the new ω does
	// (near a kink of the path a tiny change of ω moves θ_x a lot).
	tol := drop * profileAim / (2 * (1 + omega))
	_, gap0 := m.gradient(theta, make([]float64, len(theta)))
	tol = max(min(tol, gap0/10, most), 1e-13)
	_, gap, _, err = polishFrom(ctx, m, theta, tol, 0, newtonSteps, nil, nil, &ps.face)
	if err != nil {
		return 0, 0, 0, err
	}
	if gap > tol {
		// Newton's method stalled: EM from here, then Newton again. A
		// gap still above tol is kept as it is: end's verdicts use the
		// gap reached, so they stay sound, only less sharp.
		e, err := runEM(ctx, m, EMOptions{Init: theta, GapTol: tol})
		if err != nil {
			return 0, 0, 0, err
		}
		if e.Gap < gap {
			copy(theta, e.Theta)
			gap = e.Gap
		}
	}
	ll, _ = m.base.gradient(theta, make([]float64, len(theta)))
	return theta[m.x], ll, math.Max(gap, 0), nil
}

// pinned is the reports' log-likelihood L with ω pseudo-reports that
// saw symbol x exactly (up) or any symbol but x, normalised as L is so
// that its gradient G satisfies Σ_x θ_x G_x = 1:
//
//	L_ω(θ) = (L(θ) + ω·log(a·θ)) / (1 + ω),   a = e_x up, 1 − e_x down.
//
// Its MLE θ_ω maximises L among the θ with θ_x = θ_ω,x (its KKT
// conditions are those of that constrained problem, ω/(a·θ) the
// constraint's multiplier), and as ω grows θ_ω,x moves from θ̂_x to 1
// (up) or 0: Lagrange's path along the profile likelihood. The
// pseudo-reports are one more likelihood column, a, so GIBU's EM and
// Newton's method solve it as they solve L, their gap certifying it.
type pinned struct {
	base  curvedModel
	x     int
	up    bool
	omega float64
	s     float64 // a·θ at the point of at
}

// share returns a·θ.
func (p *pinned) share(theta []float64) float64 {
	if p.up {
		return theta[p.x]
	}
	return floats.Sum(theta) - theta[p.x]
}

func (p *pinned) dims() int { return p.base.dims() }

func (p *pinned) gradient(theta, grad []float64) (ll, gap float64) {
	ll, _ = p.base.gradient(theta, grad)
	s := p.share(theta)
	if s <= 0 || math.IsInf(ll, -1) {
		return math.Inf(-1), math.Inf(1)
	}
	w := p.omega / s
	for y := range grad {
		if (y == p.x) == p.up {
			grad[y] += w
		}
	}
	floats.Scale(1/(1+p.omega), grad)
	return (ll + p.omega*linalg.Log(s)) / (1 + p.omega), floats.Max(grad) - 1
}

func (p *pinned) step(theta, next []float64) (ll, gap float64) {
	ll, gap = p.gradient(theta, next)
	floats.Mul(next, theta)
	return ll, gap
}

func (p *pinned) at(theta []float64) {
	p.base.at(theta)
	p.s = p.share(theta)
}

// hessVec adds the pseudo-reports' ω·a(a·v)/(a·θ)² to the reports' −∇²L·v.
func (p *pinned) hessVec(v, dst []float64) {
	p.base.hessVec(v, dst)
	av := v[p.x]
	if !p.up {
		av = floats.Sum(v) - v[p.x]
	}
	w := p.omega * av / (p.s * p.s)
	for y := range dst {
		if (y == p.x) == p.up {
			dst[y] += w
		}
	}
	floats.Scale(1/(1+p.omega), dst)
}

// reports is the reports' rows and the pseudo-reports' one, or 0 when
// the reports' likelihood cannot be restricted.
func (p *pinned) reports() int {
	if f, ok := p.base.(facer); ok && f.reports() > 0 {
		return f.reports() + 1
	}
	return 0
}

func (p *pinned) productWork() float64 {
	if f, ok := p.base.(facer); ok {
		return f.productWork()
	}
	return 0
}

// face writes the reports' rows and, last, the pseudo-reports'
// √ω·a/(a·θ), all scaled by 1/√(1+ω).
func (p *pinned) face(free []int, x *mat.Dense) {
	f, cols := x.Dims()
	p.base.(facer).face(free, x.Slice(0, f, 0, cols-1).(*mat.Dense))
	w := math.Sqrt(p.omega) / p.s
	for b, y := range free {
		v := 0.0
		if (y == p.x) == p.up {
			v = w
		}
		x.Set(b, cols-1, v)
	}
	x.Scale(1/math.Sqrt(1+p.omega), x)
}
