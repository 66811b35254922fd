package core

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/privmap/privmap/internal/linalg"
)

// IntervalLocalProfile names the windowed profile-likelihood intervals
// (LocalProfile), GIBU's on a city's grid.
const IntervalLocalProfile IntervalMethod = "local-profile"

// localRadius is the half-width, in cells, of the window whose
// symbols a local profile frees: a square of (2·4+1)² cells.
const localRadius = 4

// LocalWindow is the side, in cells, of a local profile's window.
const LocalWindow = 2*localRadius + 1

// localTail is the reach of a planar channel's rows, in nats of its
// kernel e^{−ε·d} beyond the window: the outputs within it are the
// local problem's reports, those beyond enter its objective to first
// order in the window and second order in the outside's mass.
const localTail = 3

// localGate admits a symbol θ̂ puts at 0 into the window when its
// gradient is at least 1 − localGate: the symbols a profile's other
// symbols can move into.
const localGate = 0.2

// localIters bounds the Newton steps of one local solve.
const localIters = 60

// LocalProfile returns the windowed profile-likelihood intervals of
// GIBU's estimate θ̂ of reports on a grid sanitised by k-RR and planar
// geometric mechanisms: Profile's intervals with each end's best θ
// sought over the symbols within localRadius cells of x (the window W)
// and the outside's mass o, the outside keeping θ̂'s shape,
//
//	θ = (θ_W, o·θ̂_out/ô),   L_p^W(t) = max { ℓ(θ_W, o) : θ_x = t }.
//
// ℓ is L exactly on the reports a window symbol can shift — a planar
// channel's outputs within localTail nats of its kernel beyond W, a
// k-RR's outputs in W — and, on the others, their Taylor expansion at
// θ̂: to first order in θ_W (whose effect on those reports is flat, a
// k-RR's, or below e^{−localTail}, a planar channel's) and to second
// order in o, as A·log o + B·o with A the reports' curvature in o and B
// matching the gradient. At θ̂, ℓ's gradient is L's, so θ̂ is ℓ's
// maximum and the drops start at 0 as Profile's.
//
// It approximates Profile's intervals from within: the window's θ are
// a subset of the simplex, so L_p^W ≤ L_p up to the Taylor terms, and
// the ends lie inside the exact profile's (docs/EXPERIMENTS.md's
// coverage table measures by how much it matters). Each end is found
// by Newton's method on the drop f(t) = ℓ(θ̂) − L_p^W(t), convex, whose
// slope is the local solve's multiplier; from inside, a Newton step
// lands outside, and the iterates then stay outside, so the end
// returned is certified outside the windowed set (its solve's duality
// gap counted) within profileRel of its half-width.
//
// At the cells θ̂ puts at 0, on maps of at most LocalExactZeros
// cells, the upper ends are the exact profile's (Profile's search);
// beyond, ZeroEnds' linear bound by concavity, which holds the exact
// profile's end (counted in ZeroEnds) and costs nothing: on New York
// the windowed ends there, within 0.5% of the exact profile's, held
// 92.6% of the cells with people, the bound 94.6% (docs/EXPERIMENTS.md,
// coverage (e)). The band's ends are those of Šidák's drop, as
// Profile's. It needs GIBU's certified MLE (gap at most profileGap).
// progress, when not nil, is called with the symbols done; ctx cancels.
//
// The cost is a few small dense solves a cell of the estimate's
// support — New York's 9,024 cells in 20–40 s on two cores, where
// Profile takes hours (docs/PERFORMANCE.md) — and on small maps the
// exact searches of the cells at 0.
func LocalProfile(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, theta []float64, level float64, progress func(done int)) (*Intervals, error) {
	return localProfile(ctx, mechs, g, s, theta, level, len(theta) <= LocalExactZeros, progress)
}

// LocalExactZeros bounds the maps on which LocalProfile gives the cells
// θ̂ puts at 0 the exact profile's upper ends (Profile's search, a few
// solves of the whole likelihood each: half the time on FW's San
// Francisco set-up) rather than ZeroEnds' bound, which is looser there
// (1.5 times the exact end at the median cell of San Francisco, 4.4
// times at the 90th percentile).
const LocalExactZeros = 512

// localProfile is LocalProfile, with the exact profile's upper ends at
// the cells θ̂ puts at 0 when exactZeros, else ZeroEnds' bound.
func localProfile(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, theta []float64, level float64, exactZeros bool, progress func(done int)) (*Intervals, error) {
	if err := checkLevel(level); err != nil {
		return nil, err
	}
	cols, rows, err := localGrid(mechs, g, s)
	if err != nil {
		return nil, err
	}
	base, ll, grad, gap, err := certifiedMLE(mechs, g, s, theta, IntervalLocalProfile)
	if err != nil {
		return nil, err
	}
	lc := newLocalSetup(mechs, g, cols, rows, theta, grad, gap, level)
	if exactZeros {
		if lc.exact, err = profilerOf(ctx, base, ll, grad, mechs, g, s, theta, level); err != nil {
			return nil, err
		}
	}
	k := len(theta)
	iv := &Intervals{Level: level, Method: IntervalLocalProfile, Critical: lc.zb,
		Lo: make([]float64, k), Hi: make([]float64, k), BandLo: make([]float64, k), BandHi: make([]float64, k), SE: make([]float64, k),
		TV: math.NaN(), MaxError: math.NaN()}
	pool := make(chan *localProblem, 64)
	x, err := eachDone(ctx, k, func(x int) error {
		var lp *localProblem
		select {
		case lp = <-pool:
		default:
			lp = &localProblem{}
		}
		defer func() {
			select {
			case pool <- lp:
			default:
			}
		}()
		return lc.symbol(ctx, lp, x, iv)
	}, progress)
	if x >= 0 {
		return nil, fmt.Errorf("core: local profile interval of symbol %d: %w", x+1, err)
	}
	if err != nil {
		return nil, err
	}
	for x, t := range theta {
		iv.SE[x] = (iv.Hi[x] - iv.Lo[x]) / (2 * lc.z)
		if t <= bindingTol && !exactZeros {
			iv.ZeroEnds++
		}
	}
	return iv, nil
}

// errNotLocal is LocalProfile's refusal of a mechanism whose reports a
// window cannot restrict.
var errNotLocal = errors.New("core: local profile intervals need a grid whose users all use k-RR or planar geometric mechanisms")

// LocalStudy reports whether the study's alphabet is a grid and every
// one of its mechanisms k-RR or planar geometric: the studies whose
// reports LocalProfile takes.
func LocalStudy(s *Study) bool {
	if s == nil || s.Alphabet.Kind != KindGrid || len(s.Mechanisms) == 0 {
		return false
	}
	for _, m := range s.Mechanisms {
		if m.Kind != KindKRR && m.Kind != KindPlanar {
			return false
		}
	}
	return true
}

// LocalRows returns the rows of a cell's windowed problem in the study
// s, at most: for each planar geometric mechanism the outputs within its
// margin of the window (capped by the grid), for each k-RR the window's
// cells. The cost model reads it (a Hessian is rows × 82² multiply-adds).
func LocalRows(s *Study) int {
	a := s.Alphabet
	rows := 0
	for _, m := range s.Mechanisms {
		switch {
		case m.Kind == KindPlanar && m.Epsilon > 0 && a.CellKm > 0:
			side := 2*(localRadius+localMargin(m.Epsilon, a.CellKm)) + 1
			rows += min(side, a.Cols) * min(side, a.Rows)
		default:
			rows += min(LocalWindow, a.Cols) * min(LocalWindow, a.Rows)
		}
	}
	return rows
}

// localGrid returns the grid's columns and rows, from a planar
// mechanism or the study's alphabet.
func localGrid(mechs []Mechanism, g *Groups, s *Study) (cols, rows int, err error) {
	for j, m := range mechs {
		if g.Users[j] == 0 {
			continue
		}
		l, ok := m.(localReader)
		if !ok {
			return 0, 0, errNotLocal
		}
		if c, r, ok := l.gridShape(); ok {
			if cols > 0 && (c != cols || r != rows) {
				return 0, 0, errNotLocal
			}
			cols, rows = c, r
		}
	}
	if cols == 0 && s != nil && s.Alphabet.Kind == KindGrid {
		cols, rows = s.Alphabet.Cols, s.Alphabet.Rows
	}
	if cols == 0 || len(mechs) == 0 || cols*rows != mechs[0].Inputs() {
		return 0, 0, errNotLocal
	}
	return cols, rows, nil
}

// A localSetup holds what every symbol's local problem reads: θ̂, its
// gradient, each mechanism's counts and output probabilities at θ̂.
type localSetup struct {
	cols, rows int
	theta      []float64
	grad       []float64 // ∇L(θ̂)
	gap        float64   // θ̂'s certified gap
	chans      []localChannel
	z, zb      float64
	cell, band float64 // the drops z²/2n, zb²/2n
	// exact, when not nil, gives the cells θ̂ puts at 0 the exact
	// profile's ends.
	exact *profiler
}

// A localChannel is one mechanism's users: w[z] = c_z/n the share of
// the reports that are z, out[z] = (θ̂A)_z.
type localChannel struct {
	planar *PlanarGeometric // nil for k-RR
	krr    *KRR
	margin int // the planar rows' reach beyond the window, in cells
	w, out []float64
	// total is Σ_z w[z]; signal, for k-RR, Σ_z w[z]·((p − r)θ̂_z/out[z])²,
	// the curvature in o of its reports all outside the window.
	total, signal float64
}

// newLocalSetup returns the setup of the reports g of mechs on a
// cols×rows grid at θ̂, whose gradient and certified gap are grad and
// gap (certifiedMLE's).
func newLocalSetup(mechs []Mechanism, g *Groups, cols, rows int, theta, grad []float64, gap, level float64) *localSetup {
	k := len(theta)
	lc := &localSetup{cols: cols, rows: rows, theta: theta, grad: grad, gap: gap}
	n := float64(g.N())
	lc.z, lc.zb, lc.cell, lc.band = profileDrops(level, k, n)
	lc.chans = make([]localChannel, len(mechs))
	for j, m := range mechs {
		ch := &lc.chans[j]
		if g.Users[j] == 0 {
			continue
		}
		ch.w = make([]float64, k)
		if l, ok := m.(localReader); ok {
			l.setLocal(ch, theta)
		}
	}
	for _, gr := range g.List {
		if ch := &lc.chans[gr.Mech]; ch.w != nil {
			ch.w[gr.Report.Symbol] += float64(gr.Count) / n
		}
	}
	for j := range lc.chans {
		ch := &lc.chans[j]
		if ch.w == nil {
			continue
		}
		ch.total = floats.Sum(ch.w)
		if ch.krr != nil {
			for z := range ch.w {
				ch.signal += ch.krrSignal(theta, z)
			}
		}
	}
	return lc
}

// krrSignal returns the k-RR channel's w_z((p − r)θ̂_z/q̂_z)², output z's
// share of the curvature in o of its reports outside a window.
func (ch *localChannel) krrSignal(theta []float64, z int) float64 {
	if ch.w[z] == 0 {
		return 0
	}
	v := (ch.krr.keep() - ch.krr.other()) * theta[z] / ch.out[z]
	return ch.w[z] * v * v
}

// localMargin returns a planar channel's margin of ε a km on cells of
// cellKm: the cells its kernel takes to fall by localTail nats.
func localMargin(eps, cellKm float64) int {
	return int(math.Ceil(localTail / (eps * cellKm)))
}

// symbol sets symbol x's interval and band in iv.
func (lc *localSetup) symbol(ctx context.Context, lp *localProblem, x int, iv *Intervals) error {
	switch {
	case lc.theta[x] > bindingTol:
		lc.build(lp, x)
		hi := lp.ends(true, lc.cell, lc.band)
		lo := lp.ends(false, lc.cell, lc.band)
		iv.Hi[x], iv.BandHi[x] = hi[0], math.Max(hi[1], hi[0])
		iv.Lo[x], iv.BandLo[x] = lo[0], math.Min(lo[1], lo[0])
	case lc.exact != nil:
		return lc.exact.run(ctx, x, iv)
	default:
		// ZeroEnds' linear bound, which holds the exact profile's end
		// (docs/EXPERIMENTS.md, coverage (e): the windowed end there,
		// within 0.5% of the exact profile's, held fewer of New York's
		// one-person cells).
		iv.Hi[x] = zeroEnd(lc.cell, lc.gap, lc.grad[x])
		iv.BandHi[x] = zeroEnd(lc.band, lc.gap, lc.grad[x])
	}
	return nil
}

// A localProblem is symbol x's windowed profile: n variables, the
// window's symbols and, last, the outside's mass o (when θ̂ puts mass
// outside), and the rows of the reports the window can shift,
//
//	ℓ(θ) = Σ_r w_r log(c_r·θ) + lin·θ + A·log θ_o.
type localProblem struct {
	n, ix, io int
	cells     []int     // the window's symbols
	c         []float64 // rows × n, row-major
	w         []float64
	lin       []float64
	a         float64
	theta0    []float64 // θ̂ on the variables
	ll0       float64   // ℓ(θ̂)
	// The current point and buffers.
	theta, grad, u, d, trial []float64
	free                     []int
	xbuf                     []float64
}

// build sets lp to symbol x's window.
func (lc *localSetup) build(lp *localProblem, x int) {
	outside := lc.window(lp, x)
	a := lc.reports(lp, x, outside)
	n, rows := lp.n, len(lp.w)
	// lin makes ℓ's gradient at θ̂ that of L: the reports left out pull
	// each window symbol to first order.
	lp.lin = grow(lp.lin, n)
	for i, y := range lp.cells {
		lp.lin[i] = lc.grad[y]
	}
	lp.a = 0
	if lp.io >= 0 {
		lp.a = math.Max(a, 0)
		// ∂L/∂o along θ̂_out: Σ_{y∉W} θ̂_y G_y / ô, with Σ_y θ̂_y G_y = 1.
		gw := 0.0
		for _, y := range lp.cells {
			gw += lc.theta[y] * lc.grad[y]
		}
		lp.lin[lp.io] = (1-gw)/outside - lp.a/outside
	}
	for r := range rows {
		cr := lp.c[r*n : (r+1)*n]
		floats.AddScaled(lp.lin, -lp.w[r]/floats.Dot(cr, lp.theta0), cr)
	}
	lp.theta = grow(lp.theta, n)
	copy(lp.theta, lp.theta0)
	lp.grad, lp.d, lp.trial = grow(lp.grad, n), grow(lp.d, n), grow(lp.trial, n)
	lp.u = grow(lp.u, rows)
	lp.ll0 = lp.eval(lp.theta0, nil)
}

// window sets lp's variables for symbol x — the symbols within
// localRadius of x that θ̂ supports or whose gradient is within
// localGate of 1, and the outside's mass o when θ̂ puts any there — and
// θ̂ on them; it returns ô.
func (lc *localSetup) window(lp *localProblem, x int) float64 {
	r0, c0 := x/lc.cols, x%lc.cols
	lp.cells = lp.cells[:0]
	mass := 0.0
	for r := max(r0-localRadius, 0); r <= min(r0+localRadius, lc.rows-1); r++ {
		for c := max(c0-localRadius, 0); c <= min(c0+localRadius, lc.cols-1); c++ {
			y := r*lc.cols + c
			if y == x {
				lp.ix = len(lp.cells)
			} else if lc.theta[y] <= bindingTol && lc.grad[y] < 1-localGate {
				continue
			}
			lp.cells = append(lp.cells, y)
			mass += lc.theta[y]
		}
	}
	outside := 1 - mass
	lp.io, lp.n = -1, len(lp.cells)
	if outside > 1e-12 {
		lp.io, lp.n = lp.n, lp.n+1
	}
	lp.theta0 = grow(lp.theta0, lp.n)
	for i, y := range lp.cells {
		lp.theta0[i] = lc.theta[y]
	}
	if lp.io >= 0 {
		lp.theta0[lp.io] = outside
	}
	return outside
}

// reports sets lp's rows, the reports x's window can shift: for each
// k-RR its outputs in the window, for each planar channel its outputs
// within its margin of the window. It returns A, ô² times the
// curvature in o of the reports left out: a planar channel's weight
// beyond its margin, whose likelihood is o's alone; a k-RR's
// Σ w_z((p − r)θ̂_z/q̂_z)² over its outputs outside the window, whose
// likelihood moves with o only through θ̂_z.
func (lc *localSetup) reports(lp *localProblem, x int, outside float64) float64 {
	r0, c0 := x/lc.cols, x%lc.cols
	lp.c, lp.w = lp.c[:0], lp.w[:0]
	a := 0.0
	row := make([]float64, lp.n)
	for j := range lc.chans {
		ch := &lc.chans[j]
		switch {
		case ch.w == nil:
		case ch.krr != nil:
			a += ch.signal
			for _, z := range lp.cells {
				lc.row(lp, ch, z, outside, row)
				a -= ch.krrSignal(lc.theta, z)
			}
		default:
			a += ch.total
			reach := localRadius + ch.margin
			for r := max(r0-reach, 0); r <= min(r0+reach, lc.rows-1); r++ {
				for c := max(c0-reach, 0); c <= min(c0+reach, lc.cols-1); c++ {
					a -= lc.row(lp, ch, r*lc.cols+c, outside, row)
				}
			}
		}
	}
	return a
}

// row appends to lp the row of channel ch's output z, when any report
// is z, and returns its weight w_z: the window symbols' P(z | y) and
// o's, the outside's share of θ̂A at z per unit of its mass.
func (lc *localSetup) row(lp *localProblem, ch *localChannel, z int, outside float64, row []float64) float64 {
	wz := ch.w[z]
	if wz == 0 {
		return 0
	}
	in := 0.0
	for i, y := range lp.cells {
		row[i] = lc.prob(ch, y, z)
		in += row[i] * lc.theta[y]
	}
	if lp.io >= 0 {
		row[lp.io] = math.Max(ch.out[z]-in, 0) / outside
	}
	lp.c = append(lp.c, row...)
	lp.w = append(lp.w, wz)
	return wz
}

// prob returns P(z | y) of the channel.
func (lc *localSetup) prob(ch *localChannel, y, z int) float64 {
	if ch.planar != nil {
		return ch.planar.Prob(y, z)
	}
	return ch.krr.Prob(y, z)
}

// grow returns s with length n, reallocated when too short.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// eval returns ℓ(θ) and, when grad is not nil, sets grad = ∇ℓ(θ) and
// u_r = w_r/(c_r·θ).
func (lp *localProblem) eval(theta, grad []float64) float64 {
	n := lp.n
	ll := floats.Dot(lp.lin, theta)
	if grad != nil {
		copy(grad, lp.lin)
	}
	for r, w := range lp.w {
		cr := lp.c[r*n : (r+1)*n]
		q := floats.Dot(cr, theta)
		if !(q > 0) {
			return math.Inf(-1)
		}
		ll += w * linalg.Log(q)
		if grad != nil {
			lp.u[r] = w / q
			floats.AddScaled(grad, w/q, cr)
		}
	}
	if lp.io >= 0 && lp.a > 0 {
		o := theta[lp.io]
		if !(o > 0) {
			return math.Inf(-1)
		}
		ll += lp.a * linalg.Log(o)
		if grad != nil {
			grad[lp.io] += lp.a / o
		}
	}
	return ll
}

// ends returns the ends, up (t above θ̂_x) or down, of the windowed
// profile sets of the drops, in increasing order of the drops: each
// search starts from the last one's end.
func (lp *localProblem) ends(up bool, drops ...float64) []float64 {
	t0 := lp.theta0[lp.ix]
	copy(lp.theta, lp.theta0)
	edge := 0.0
	if up {
		edge = 1
	}
	// The first trial: the quadratic of ℓ's own curvature in θ_x, which
	// the others' adjustment only flattens.
	lp.eval(lp.theta0, lp.grad)
	hxx := 0.0
	for r, u := range lp.u {
		v := lp.c[r*lp.n+lp.ix] * u / lp.w[r]
		hxx += lp.w[r] * v * v
	}
	t := t0 + math.Copysign(math.Sqrt(2*drops[0]/math.Max(hxx, 1e-300)), edge-t0)
	out := make([]float64, len(drops))
	for i, drop := range drops {
		out[i] = lp.end(t, t0, edge, drop)
		t = out[i]
	}
	return out
}

// end returns the end on edge's side of θ̂_x = t0 of the windowed
// profile set of drop, searched by Newton's steps on f(t) = drop from
// t: the nearest t certified outside when the last step moved it by at
// most profileRel of its distance from t0, or when the bracket of the
// values inside and outside is that narrow; edge when it is inside.
func (lp *localProblem) end(t, t0, edge, drop float64) float64 {
	tIn, tOut := t0, math.NaN()
	for range profileEvals {
		t = math.Min(math.Max(t, 0), 1)
		f, slope, gap := lp.measure(t, drop)
		outside := f-gap > drop
		switch {
		case f <= drop:
			if tIn = t; t == edge {
				return edge
			}
		case outside && (math.IsNaN(tOut) || math.Abs(t-t0) < math.Abs(tOut-t0)):
			tOut = t
		}
		// Newton's step on f(t) = drop; f′ = −slope.
		next := t + (drop-f)/(-slope)
		if outside && math.Abs(next-t) <= profileRel*math.Abs(t-t0)+bindingTol {
			return tOut
		}
		if !math.IsNaN(tOut) && math.Abs(tOut-tIn) <= profileRel*math.Abs(tOut-t0)+bindingTol {
			return tOut
		}
		t = safeguard(next, t, t0, edge, tIn, tOut)
	}
	if math.IsNaN(tOut) {
		return edge
	}
	return tOut
}

// safeguard returns Newton's next trial, or, when it leaves the
// bracket [tIn, tOut] (tOut NaN while none is known outside) or goes
// the wrong way, the bracket's midpoint or twice t's distance from t0.
func safeguard(next, t, t0, edge, tIn, tOut float64) float64 {
	bad := math.IsInf(next, 0) || math.IsNaN(next) || (next-t0)*(edge-t0) <= 0
	switch {
	case !math.IsNaN(tOut) && (bad || !between(next, tIn, tOut)):
		return (tIn + tOut) / 2
	case bad:
		return t0 + 2*(t-t0)
	}
	return next
}

// between reports whether v lies strictly between a and b.
func between(v, a, b float64) bool {
	return (v-a)*(v-b) < 0
}

// measure solves the windowed profile at θ_x = t and returns its drop
// f = ℓ(θ̂) − ℓ(θ_t), the slope dℓ/dt of the profile there and the
// solve's certified gap (ℓ's maximum lies within it above ℓ(θ_t)).
func (lp *localProblem) measure(t, drop float64) (f, slope, gap float64) {
	tol := math.Max(drop*profileAim/4, 1e-15)
	ll, slope, gap := lp.solve(t, tol)
	if f = lp.ll0 - ll; f > drop && f-gap <= drop {
		ll, slope, gap = lp.solve(t, gap/100)
		f = lp.ll0 - ll
	}
	return f, slope, gap
}

// solve maximises ℓ over the variables with θ_x = t by projected
// Newton steps on the free face (equality-constrained, dense: the
// window is small), from the last solve's point, until the duality gap
// (1 − t)·max_{y≠x} g_y − Σ_{y≠x} θ_y g_y is at most tol. It returns
// ℓ there, dℓ/dt = g_x − ν (ν the others' multiplier) and the gap.
func (lp *localProblem) solve(t, tol float64) (ll, slope, gap float64) {
	th, n, ix := lp.theta, lp.n, lp.ix
	rest := 1 - t
	others := floats.Sum(th) - th[ix]
	if others <= 0 {
		for i := range th {
			th[i] = 1
		}
		others = float64(n - 1)
	}
	floats.Scale(rest/others, th)
	th[ix] = t
	var nu float64
	for range localIters {
		ll = lp.eval(th, lp.grad)
		gmax, dot := math.Inf(-1), 0.0
		for i, g := range lp.grad {
			if i != ix {
				gmax = math.Max(gmax, g)
				dot += th[i] * g
			}
		}
		gap = rest*gmax - dot
		nu = dot / rest
		if rest <= 0 {
			nu, gap = 0, 0
		}
		if gap <= tol {
			break
		}
		if !lp.newton(ll, nu) {
			break
		}
	}
	return ll, lp.grad[ix] - nu, math.Max(gap, 0)
}

// newton takes one damped Newton step at lp.theta (lp.grad, lp.u set
// by eval, ℓ = ll, ν the others' multiplier) and reports whether ℓ
// rose.
func (lp *localProblem) newton(ll, nu float64) bool {
	if !lp.face(nu) {
		return false
	}
	th := lp.theta
	step, block := 1.0, -1
	for _, i := range lp.free {
		if lp.d[i] < 0 && th[i]/(-lp.d[i]) < step {
			step, block = th[i]/(-lp.d[i]), i
		}
	}
	slope := floats.Dot(lp.grad, lp.d)
	for range 50 {
		copy(lp.trial, th)
		floats.AddScaled(lp.trial, step, lp.d)
		if block >= 0 && step == th[block]/(-lp.d[block]) {
			lp.trial[block] = 0
		}
		for _, i := range lp.free {
			lp.trial[i] = math.Max(lp.trial[i], 0)
		}
		if l := lp.eval(lp.trial, nil); l >= ll+1e-4*step*slope {
			copy(th, lp.trial)
			return l > ll
		}
		step /= 2
	}
	return false
}

// face sets lp.free to the symbols other than x the step moves — those
// above 0 and those at 0 whose gradient exceeds ν, less any the step
// would push below 0 — and lp.d to the Newton step on them; it reports
// whether there is one.
func (lp *localProblem) face(nu float64) bool {
	th := lp.theta
	lp.free = lp.free[:0]
	for i := range lp.n {
		if i != lp.ix && (th[i] > 0 || lp.grad[i] > nu) {
			lp.free = append(lp.free, i)
		}
	}
	for len(lp.free) > 0 && lp.direction() {
		kept := lp.free[:0]
		for _, i := range lp.free {
			if th[i] > 0 || lp.d[i] >= 0 {
				kept = append(kept, i)
			}
		}
		if len(kept) == len(lp.free) {
			return true
		}
		lp.free = kept
	}
	return false
}

// direction sets lp.d on the free symbols to the Newton step H d = g −
// ν1, 1ᵀd = 0, with H the negated Hessian on them (others 0).
func (lp *localProblem) direction() bool {
	f, n, rows := len(lp.free), lp.n, len(lp.w)
	// Y's row r is √w_r/q_r · c_r on the free symbols, so that YᵀY is
	// the negated Hessian of the rows' terms there.
	lp.xbuf = grow(lp.xbuf, rows*f)
	for r, u := range lp.u {
		sc := u / math.Sqrt(lp.w[r])
		cr, dst := lp.c[r*n:(r+1)*n], lp.xbuf[r*f:(r+1)*f]
		for b, i := range lp.free {
			dst[b] = cr[i] * sc
		}
	}
	h := mat.NewSymDense(f, nil)
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: rows, Cols: f, Stride: f, Data: lp.xbuf}, 0, h.RawSymmetric())
	top := 0.0
	for b, i := range lp.free {
		if i == lp.io && lp.a > 0 {
			o := lp.theta[i]
			h.SetSym(b, b, h.At(b, b)+lp.a/(o*o))
		}
		top = math.Max(top, h.At(b, b))
	}
	for b := range f {
		h.SetSym(b, b, h.At(b, b)+1e-12*top+1e-300)
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return false
	}
	g := mat.NewVecDense(f, nil)
	one := mat.NewVecDense(f, nil)
	for b, i := range lp.free {
		g.SetVec(b, lp.grad[i])
		one.SetVec(b, 1)
	}
	var hg, h1 mat.VecDense
	if ch.SolveVecTo(&hg, g) != nil || ch.SolveVecTo(&h1, one) != nil {
		return false
	}
	nu := mat.Sum(&hg) / mat.Sum(&h1)
	for i := range lp.d {
		lp.d[i] = 0
	}
	for b, i := range lp.free {
		lp.d[i] = hg.AtVec(b) - nu*h1.AtVec(b)
	}
	return true
}
