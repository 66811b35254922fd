package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/privmap/privmap/internal/linalg"
)

// KindShokri names Shokri's optimal mechanism (FW §8.2.4) in study files.
const KindShokri MechanismKind = "shokri"

// shokriKind is Shokri's optimal mechanism (FW §8.2.4), registered in kindRegistry.
var shokriKind = Kind{Name: KindShokri, Alphabets: []AlphabetKind{KindLinear, KindGrid}, Param: ParamQualityLoss, Solved: true,
	build: func(ctx context.Context, s MechanismSpec, a Alphabet, progress func(int, float64)) (Mechanism, error) {
		m, err := newShokri(ctx, a, s.QualityLoss, progress)
		return m, err
	},
}

// Shokri is the optimal location-privacy mechanism of Shokri et al.
// (CCS 2012) as used in FW §8.2.4: the channel A maximising the
// adversary's expected error
//
//	Σ_y min_z Σ_x π_x A_xy d(x, z)
//
// subject to the expected quality loss Σ_x π_x Σ_z A_xz d(x, z) ≤ Q and
// each row of A a distribution, for a prior π and a distance d.
//
// The linear program has K² + K variables and K² + 1 inequalities: gonum's
// dense simplex fails on it from K ≈ 15 (degenerate bases). It is solved
// here by the primal–dual hybrid gradient method (Chambolle & Pock 2011)
// with restarts to the averaged iterate (Applegate et al., PDLP, 2021),
// keeping A's rows on the simplex by projection so that only the K²
// adversary cuts and the quality constraint are dualised. Each iteration
// costs two K×K matrix products. Every solution is certified: Objective
// is the exact objective of the returned channel, which meets every
// constraint (a final mix with the identity makes the quality loss at
// most Q, with equality when it binds), and Bound is an upper bound —
// the smaller of a dual bound and Q itself, since the adversary may guess
// the observation, whose expected error is the quality loss — so the
// returned channel is within Bound − Objective of optimal. Q is the
// optimum whenever the quality constraint binds, and reaching it ends the
// solve at once (FW Table 8 on 24×16: about 100 iterations instead of
// some ten thousand for the dual bound to meet it). When it cannot bind —
// Q at or above the prior's least expected distance — the optimum is
// that distance, reached by reporting one fixed symbol, and is returned
// without iterating (blindShokri).
type Shokri struct {
	K           int
	QualityLoss float64
	// Objective is the adversary's expected error under A; Bound an upper
	// bound on its optimum; Iterations the PDHG iterations run.
	Objective, Bound float64
	Iterations       int
	// Blind: the quality bound cannot bind, and the optimum reports one
	// symbol whatever the input (blindShokri): no estimator that inverts
	// the channel can take its reports.
	Blind bool

	a   []float64 // row-major K×K channel
	cum []float64 // row-wise cumulative sums, for sampling
}

// ShokriOptions tune SolveShokri. Zero values select the defaults.
type ShokriOptions struct {
	// Tol is the relative optimality gap to reach, (Bound−Objective)/Objective;
	// default 1e−6.
	Tol float64
	// MaxIter bounds the iterations; default 200,000.
	MaxIter int
	// Progress, when not nil, is called now and then with the iteration
	// and the current relative gap.
	Progress func(iter int, gap float64)
}

// Shokri's capabilities.
var (
	_ Channel = (*Shokri)(nil)
	_ blinder = (*Shokri)(nil)
	_ Sampler = (*Shokri)(nil)
)

// SolveShokri computes Shokri's mechanism for the K×K distance matrix d,
// prior π (uniform when nil) and quality bound q > 0. ctx cancels.
func SolveShokri(ctx context.Context, d *mat.Dense, prior []float64, q float64, opt ShokriOptions) (*Shokri, error) {
	k, c := d.Dims()
	if k != c || k < 2 {
		return nil, fmt.Errorf("core: shokri: distance matrix must be square with K ≥ 2, got %d×%d", k, c)
	}
	if !(q > 0) || math.IsInf(q, 0) {
		return nil, fmt.Errorf("core: shokri: quality loss must be positive and finite, got %v", q)
	}
	if prior == nil {
		prior = fill(nil, k, 1/float64(k))
	}
	if len(prior) != k {
		return nil, fmt.Errorf("core: shokri: prior has %d entries for K = %d", len(prior), k)
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-6
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 200000
	}
	// No channel loses more than the largest distance: a bound above it
	// binds nothing and is that distance (Q = 10³⁰⁰ scaled the program
	// out of floating point, and rows came out summing to 1.2).
	q = min(q, mat.Max(d))
	if m := blindShokri(d, prior, q); m != nil {
		return m, nil
	}
	s, err := newPDHG(ctx, d, prior, q)
	if err != nil {
		return nil, err
	}
	if err := s.run(ctx, opt); err != nil {
		return nil, err
	}
	m := &Shokri{K: k, QualityLoss: q, Objective: s.bestLB * s.scale, Bound: s.bestUB * s.scale, Iterations: s.iter}
	m.a = s.best
	m.cum = make([]float64, k*k)
	for x := range k {
		acc := 0.0
		for z := range k {
			acc += m.a[x*k+z]
			m.cum[x*k+z] = acc
		}
	}
	return m, nil
}

// blindShokri returns the optimum when the quality bound does not bind,
// certified without iterating, or nil when it may bind. An adversary
// may ignore the report and guess the z* that minimises the prior's
// expected distance, P = min_z Σ_x π_x d(x, z): under any channel her
// expected error is then at most P,
//
//	Σ_y min_z Σ_x π_x A_xy d(x, z) ≤ Σ_y Σ_x π_x A_xy d(x, z*) = P,
//
// so P bounds the optimum. The channel that reports z* whatever the
// input reaches it, and its quality loss is Σ_x π_x d(x, z*) = P: when
// q ≥ P it is feasible and optimal (FW's linear alphabet of 100 symbols
// at Q = 28 against P = 25, where PDHG iterated for 18–58 s towards
// it). The lowest such z* is taken.
func blindShokri(d *mat.Dense, prior []float64, q float64) *Shokri {
	k, _ := d.Dims()
	best, zStar := math.Inf(1), -1
	for z := range k {
		loss := 0.0
		for x, p := range prior {
			loss += p * d.At(x, z)
		}
		if loss < best {
			best, zStar = loss, z
		}
	}
	if !(q >= best) {
		return nil
	}
	m := &Shokri{K: k, QualityLoss: q, Objective: best, Bound: best, Blind: true, a: make([]float64, k*k), cum: make([]float64, k*k)}
	for x := range k {
		m.a[x*k+zStar] = 1
		for z := zStar; z < k; z++ {
			m.cum[x*k+z] = 1
		}
	}
	return m
}

// ShokriBlind returns the least expected distance P = min_z mean_x
// d(x, z) on metric alphabet a (the uniform prior newShokri takes) and
// whether a quality bound q cannot bind there (q ≥ P, or q at least the
// largest distance): Shokri's optimum then reports one symbol. It costs
// O(K²); on an alphabet without a metric it reports false.
func ShokriBlind(a Alphabet, q float64) (float64, bool) {
	k := a.Len()
	if _, _, ok := a.Distance(0, 0); !ok || k < 2 {
		return 0, false
	}
	best, far := math.Inf(1), 0.0
	for z := range k {
		sum := 0.0
		for x := range k {
			d, _, _ := a.Distance(x, z)
			sum += d / float64(k)
			far = math.Max(far, d)
		}
		best = math.Min(best, sum)
	}
	return best, min(q, far) >= best
}

// Inputs returns K.
func (m *Shokri) Inputs() int { return m.K }

// blindObjective returns the linear program's objective and whether the
// quality bound did not bind (Blind): blinder.
func (m *Shokri) blindObjective() (float64, bool) { return m.Objective, m.Blind }

// Outputs returns K.
func (m *Shokri) Outputs() int { return m.K }

// Prob returns P(z | x).
func (m *Shokri) Prob(x, z int) float64 { return m.a[x*m.K+z] }

// Sample draws from row x of the channel.
func (m *Shokri) Sample(rng *rand.Rand, x int) int {
	row := m.cum[x*m.K : (x+1)*m.K]
	u := rng.Float64() * row[m.K-1]
	for z, c := range row {
		if c > u {
			return z
		}
	}
	return m.K - 1
}

// Likelihood sets dst[x] = P(r | x).
func (m *Shokri) Likelihood(dst []float64, r Report) ([]float64, float64) {
	dst = fill(dst, m.K, 0)
	for x := range dst {
		dst[x] = m.a[x*m.K+r.Symbol]
	}
	return dst, 0
}

// pdhg holds the scaled problem and the iterates. Distances and Q are
// divided by the largest distance (scale).
type pdhg struct {
	k            int
	scale, q     float64
	p            *mat.Dense // P_xz = π_x d_xz / scale
	a, u         *mat.Dense // primal channel, duals of the cuts (rows y, cols z)
	t            []float64
	v            float64
	tau, sigma   float64
	eta, omega   float64 // step size and primal weight: τ = η/ω, σ = ηω
	gamma        float64 // t_y = γ·s.t[y], balancing t's columns with A's
	iter         int
	best         []float64 // best repaired channel
	bestLB       float64
	bestUB       float64
	work1, work2 *mat.Dense
	aOld, ext    *mat.Dense // step's buffers
	// For d(x, z) = c·|x − z| (linear alphabets), products with D are
	// distance transforms in O(K): unit = c/scale, prior π.
	linear        bool
	unit          float64
	prior, tw, tf []float64
	tOld          []float64
	scratch       []float64
}

func newPDHG(ctx context.Context, d *mat.Dense, prior []float64, q float64) (*pdhg, error) {
	k, _ := d.Dims()
	s := &pdhg{k: k, scale: mat.Max(d), bestLB: math.Inf(-1), bestUB: math.Inf(1)}
	s.q = q / s.scale
	// The adversary may guess the observation itself: then its expected
	// error is Σ_y M_yy(A) = L(A) ≤ Q, so no channel of quality loss Q
	// gives more privacy than Q. That bound holds for the optimum, and a
	// channel reaching it is certified optimal at once.
	s.bestUB = s.q
	s.p = mat.NewDense(k, k, nil)
	s.p.Apply(func(x, z int, v float64) float64 { return prior[x] * v / s.scale }, d)
	if c := d.At(0, 1); isLinear(d, c) {
		s.linear, s.unit = true, c/s.scale
		s.prior = prior
		s.tw, s.tf = make([]float64, k), make([]float64, k)
	}
	s.a = mat.NewDense(k, k, nil)
	for x := range k {
		s.a.Set(x, x, 1) // start from the identity: loss 0 ≤ Q
	}
	s.u = mat.NewDense(k, k, nil)
	s.t = make([]float64, k)
	s.gamma = 1 / float64(k)
	s.work1, s.work2 = mat.NewDense(k, k, nil), mat.NewDense(k, k, nil)
	s.aOld, s.ext = mat.NewDense(k, k, nil), mat.NewDense(k, k, nil)
	s.tOld, s.scratch = make([]float64, k), make([]float64, k)
	// PDLP's initial primal weight ‖c‖/‖q‖: c is −1 on each t_y, q is
	// the quality bound.
	norm, err := s.opNorm(ctx)
	if err != nil {
		return nil, err
	}
	s.eta = 0.9 / norm
	s.setOmega(s.gamma * math.Sqrt(float64(k)) / s.q)
	return s, nil
}

func (s *pdhg) setOmega(w float64) {
	s.omega = w
	s.tau, s.sigma = s.eta/w, s.eta*w
}

// cuts sets dst_yz = M_yz(A) = Σ_x A_xy P_xz.
func (s *pdhg) cuts(dst, a *mat.Dense) {
	if !s.linear {
		dst.Mul(a.T(), s.p)
		return
	}
	k := s.k
	ad, dd := a.RawMatrix().Data, dst.RawMatrix().Data
	for y := range k {
		for x := range k {
			s.tw[x] = s.prior[x] * ad[x*k+y]
		}
		transform(s.tf, s.tw)
		for z := range k {
			dd[y*k+z] = s.unit * s.tf[z]
		}
	}
}

// mulPUt sets dst = P Uᵀ: dst_xy = Σ_z P_xz u_yz.
func (s *pdhg) mulPUt(dst, u *mat.Dense) {
	if !s.linear {
		dst.Mul(s.p, u.T())
		return
	}
	k := s.k
	ud, dd := u.RawMatrix().Data, dst.RawMatrix().Data
	for y := range k {
		transform(s.tf, ud[y*k:(y+1)*k])
		for x := range k {
			dd[x*k+y] = s.prior[x] * s.unit * s.tf[x]
		}
	}
}

// transform sets f(z) = Σ_x w_x |x − z| in O(K) by running sums.
func transform(f, w []float64) {
	mass, acc := 0.0, 0.0
	for z := range w { // Σ_{x<z} w_x (z − x)
		acc += mass
		f[z] = acc
		mass += w[z]
	}
	mass, acc = 0, 0
	for z := len(w) - 1; z >= 0; z-- { // Σ_{x>z} w_x (x − z)
		acc += mass
		f[z] += acc
		mass += w[z]
	}
}

// isLinear reports whether d(x, z) = c·|x − z| exactly, c > 0.
func isLinear(d *mat.Dense, c float64) bool {
	k, _ := d.Dims()
	if !(c > 0) {
		return false
	}
	for x := range k {
		for z := range k {
			if d.At(x, z) != c*math.Abs(float64(x-z)) {
				return false
			}
		}
	}
	return true
}

// loss returns L(A) = Σ P_xz A_xz (the matrices are dense, unstrided).
func (s *pdhg) loss(a *mat.Dense) float64 {
	return floats.Dot(s.p.RawMatrix().Data, a.RawMatrix().Data)
}

// opNorm estimates the norm of the constraint operator
// (A, t) ↦ (t_y − M_yz(A), L(A)) by power iteration, stopping with
// ctx's error once ctx is done.
func (s *pdhg) opNorm(ctx context.Context) (float64, error) {
	k := s.k
	a := mat.NewDense(k, k, nil)
	a.Apply(func(i, j int, _ float64) float64 { return 1 + 0.1*float64((i*7+j*3)%5) }, a)
	t := fill(nil, k, 1)
	m := mat.NewDense(k, k, nil)
	norm := 1.0
	for range 30 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		// y = K(a, t)
		s.cuts(m, a)
		m.Apply(func(y, z int, v float64) float64 { return s.gamma*t[y] - v }, m)
		l := s.loss(a)
		// (a, t) = Kᵀ y
		var g mat.Dense
		g.ReuseAs(k, k)
		s.mulPUt(&g, m) // (P Mᵀ)_xy
		a.Apply(func(x, y int, v float64) float64 { return -v + l*s.p.At(x, y) }, &g)
		for y := range k {
			t[y] = s.gamma * mat.Sum(m.RowView(y))
		}
		n := math.Sqrt(mat.Norm(a, 2)*mat.Norm(a, 2) + floats.Dot(t, t))
		norm = math.Sqrt(n)
		a.Scale(1/n, a)
		for i := range t {
			t[i] /= n
		}
	}
	return norm, nil
}

// step runs one PDHG iteration on the raw storage of the iterates.
func (s *pdhg) step() {
	k := s.k
	s.aOld.Copy(s.a)
	copy(s.tOld, s.t)
	a, p, w1 := s.a.RawMatrix().Data, s.p.RawMatrix().Data, s.work1.RawMatrix().Data
	u := s.u.RawMatrix().Data
	// Primal: ∇_A = −P Uᵀ + v P, ∇_t = γ(−1 + Σ_z u_yz).
	s.mulPUt(s.work1, s.u)
	for i := range a {
		a[i] -= s.tau * (s.v*p[i] - w1[i])
	}
	for x := range k {
		row := a[x*k : (x+1)*k]
		linalg.ProjectSimplexScratch(row, row, s.scratch)
	}
	for y := range k {
		s.t[y] -= s.tau * s.gamma * (floats.Sum(u[y*k:(y+1)*k]) - 1)
	}
	// Dual on the extrapolation 2x⁺ − x.
	ext, old := s.ext.RawMatrix().Data, s.aOld.RawMatrix().Data
	for i := range ext {
		ext[i] = 2*a[i] - old[i]
	}
	s.cuts(s.work2, s.ext)
	w2 := s.work2.RawMatrix().Data
	for y := range k {
		ty := s.gamma * (2*s.t[y] - s.tOld[y])
		for z := y * k; z < (y+1)*k; z++ {
			u[z] = math.Max(0, u[z]+s.sigma*(ty-w2[z]))
		}
	}
	s.v = math.Max(0, s.v+s.sigma*(floats.Dot(p, ext)-s.q))
	s.iter++
}

// lower repairs a (a copy) to meet the quality bound by mixing with the
// identity, and returns it with its exact objective Σ_y min_z M_yz.
func (s *pdhg) lower(a *mat.Dense) (*mat.Dense, float64) {
	r := mat.DenseCopyOf(a)
	if l := s.loss(r); l > s.q {
		beta := (l - s.q) / l
		r.Scale(1-beta, r)
		for x := range s.k {
			r.Set(x, x, r.At(x, x)+beta)
		}
	}
	s.cuts(s.work2, r)
	obj := 0.0
	for y := range s.k {
		obj += mat.Min(s.work2.RowView(y))
	}
	return r, obj
}

// upper returns the dual bound: with ũ the rows of U normalised to sum 1
// (uniform where a row is 0), the dual function is finite and
//
//	max ≤ −Σ_x min_y [ v P_xy − (P ũᵀ)_xy ] + v q.
func (s *pdhg) upper(u *mat.Dense, v float64) float64 {
	k := s.k
	un := mat.NewDense(k, k, nil)
	for y := range k {
		sum := mat.Sum(u.RowView(y))
		for z := range k {
			if sum > 0 {
				un.Set(y, z, u.At(y, z)/sum)
			} else {
				un.Set(y, z, 1/float64(k))
			}
		}
	}
	s.mulPUt(s.work1, un)
	g := -v * s.q
	for x := range k {
		best := math.Inf(1)
		for y := range k {
			best = math.Min(best, v*s.p.At(x, y)-s.work1.At(x, y))
		}
		g += best
	}
	return -g
}

// run iterates until the certified relative gap is below opt.Tol.
func (s *pdhg) run(ctx context.Context, opt ShokriOptions) error {
	const check = 32
	k := s.k
	avgA, avgU := mat.NewDense(k, k, nil), mat.NewDense(k, k, nil)
	avgT := make([]float64, k)
	avgV, n := 0.0, 0
	lastGap := math.Inf(1)
	restartA, restartU := mat.DenseCopyOf(s.a), mat.DenseCopyOf(s.u)
	restartT, restartV := append([]float64(nil), s.t...), s.v
	for s.iter < opt.MaxIter {
		// A step costs two K×K products: hear a cancel at every one.
		if err := ctx.Err(); err != nil {
			return err
		}
		s.step()
		avgA.Add(avgA, s.a)
		avgU.Add(avgU, s.u)
		for i := range avgT {
			avgT[i] += s.t[i]
		}
		avgV += s.v
		n++
		if s.iter%check != 0 {
			continue
		}
		var ma, mu mat.Dense
		ma.Scale(1/float64(n), avgA)
		mu.Scale(1/float64(n), avgU)
		mv := avgV / float64(n)
		gapCur := s.consider(s.a, s.u, s.v)
		gapAvg := s.consider(&ma, &mu, mv)
		rel := (s.bestUB - s.bestLB) / math.Max(math.Abs(s.bestLB), 1e-12)
		if opt.Progress != nil {
			opt.Progress(s.iter, rel)
		}
		if rel <= opt.Tol {
			return nil
		}
		// Restart to the better of current and average on sufficient decay.
		if g := math.Min(gapCur, gapAvg); g <= 0.2*lastGap || float64(n) >= 0.36*float64(s.iter) {
			if gapAvg < gapCur {
				s.a.Copy(&ma)
				s.u.Copy(&mu)
				s.v = mv
				for i := range s.t {
					s.t[i] = avgT[i] / float64(n)
				}
			}
			lastGap = g
			s.rebalance(restartA, restartU, restartT, restartV)
			restartA.Copy(s.a)
			restartU.Copy(s.u)
			copy(restartT, s.t)
			restartV = s.v
			avgA.Zero()
			avgU.Zero()
			clear(avgT)
			avgV, n = 0, 0
		}
	}
	return fmt.Errorf("core: shokri: no %.0e gap after %d iterations (gap %.2g); raise MaxIter or Tol",
		opt.Tol, s.iter, (s.bestUB-s.bestLB)/math.Abs(s.bestLB))
}

// rebalance updates the primal weight at a restart from how far the
// primal and dual iterates moved since the last one (PDLP §3.3):
// ω ← exp(½ ln(Δy/Δx) + ½ ln ω).
func (s *pdhg) rebalance(a0, u0 *mat.Dense, t0 []float64, v0 float64) {
	var da, du mat.Dense
	da.Sub(s.a, a0)
	du.Sub(s.u, u0)
	dx := mat.Norm(&da, 2)
	dy := mat.Norm(&du, 2)
	for i := range t0 {
		dx = math.Hypot(dx, s.t[i]-t0[i])
	}
	dy = math.Hypot(dy, s.v-v0)
	if dx > 1e-10 && dy > 1e-10 {
		s.setOmega(math.Exp(0.5*math.Log(dy/dx) + 0.5*math.Log(s.omega)))
	}
}

// consider updates the best bounds from an iterate and returns its gap.
func (s *pdhg) consider(a, u *mat.Dense, v float64) float64 {
	r, lb := s.lower(a)
	ub := s.upper(u, v)
	if lb > s.bestLB {
		s.bestLB = lb
		s.best = append(s.best[:0], r.RawMatrix().Data...)
	}
	s.bestUB = math.Min(s.bestUB, ub)
	return ub - lb
}

// newShokri solves Shokri's mechanism on a metric alphabet with a uniform
// prior, as FW §8.2.4 does.
func newShokri(ctx context.Context, a Alphabet, q float64, progress func(int, float64)) (*Shokri, error) {
	k := a.Len()
	d := mat.NewDense(k, k, nil)
	for x := range k {
		for z := range k {
			v, _, ok := a.Distance(x, z)
			if !ok {
				return nil, fmt.Errorf("shokri needs a linear or grid alphabet, not %s", a.Kind)
			}
			d.Set(x, z, v)
		}
	}
	return SolveShokri(ctx, d, nil, q, ShokriOptions{Progress: progress})
}
