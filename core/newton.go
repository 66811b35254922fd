package core

import (
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// newtonBudget bounds the work of one Newton step of polish, groups × K²
// multiply-adds to form the Hessian: 2·10⁹, about a second. Larger
// problems stay with EM and its certificate.
const newtonBudget = 2e9

// bindingTol is the mass below which a coordinate whose gradient pushes
// it out of the simplex is held at 0 by a Newton step.
const bindingTol = 1e-9

// likelihoodUlps is the relative rounding of a normalised
// log-likelihood, within which polish judges steps by their gap.
const likelihoodUlps = 1e-15

// minDamp is the smallest ridge of a Newton step, relative to the
// largest curvature.
const minDamp = 1e-12

// newtonSteps bounds the Newton steps of one polish.
const newtonSteps = 100

// polishable reports whether polish may form c's Hessian densely.
func (c *columns) polishable() bool {
	return float64(len(c.col))*float64(c.k)*float64(c.k) <= newtonBudget
}

// A curvedModel is an EM model that also gives the gradient of its
// log-likelihood and products with its Hessian, as polish needs.
type curvedModel interface {
	emModel
	// gradient sets grad = ∇L(θ) and returns L(θ) and the gap.
	gradient(theta, grad []float64) (ll, gap float64)
	// at fixes θ as the point of later calls of hessVec.
	at(theta []float64)
	// hessVec sets dst = −∇²L(θ)·v at the point of at.
	hessVec(v, dst []float64)
}

// polish improves θ towards the MLE by Newton steps on the face of the
// simplex that θ's free set F spans: the symbols with θ_x > 0 and those
// whose gradient G_x = ∇_x L(θ) exceeds 1 (the KKT conditions want them
// in). With H = (1/n) Σ c·g_F g_Fᵀ/(θ·g)², the negated Hessian of L on
// F, the step d solves
//
//	H d = G_F − μ·1,   1ᵀd = 0,   μ = 1ᵀH⁻¹G_F / 1ᵀH⁻¹1,
//
// by a dense Cholesky factorisation of H when it is small enough
// (columns.newtonStep), else by conjugate gradients on Hessian products
// (cgStep); cut short where a coordinate would turn negative (it then
// leaves F), and halved until the likelihood does not decrease, so L
// never falls. After a step was cut, the coordinates the next step would
// take below zero while their gradient pushes them out join the bound
// set and the step is solved again on the smaller face (rebind): the
// projection alone moves them to zero off the quadratic model, and near
// the MLE such steps stall. Near the MLE the steps converge
// quadratically, where EM crawls. It stops when the certified gap max_x G_x − 1 (see emUpdate)
// is at most tol, after newtonSteps steps or once iter reaches maxIter,
// or when a step no longer raises L, calling progress, if not nil, after
// each step. It returns θ (updated in place), L(θ), the gap and iter plus
// the steps.
func polish(ctx context.Context, m curvedModel, theta []float64, tol float64, iter, maxIter int, progress func(int, float64, float64), inner func(int, float64)) (ll, gap float64, iters int, err error) {
	k := m.dims()
	grad, next, trial := make([]float64, k), make([]float64, k), make([]float64, k)
	bound := make([]bool, k)
	st := &newtonState{cgParams: cgParams{damp: minDamp, tol: tol, limit: cgFirst}}
	ll, gap = m.gradient(theta, grad)
	for range newtonSteps {
		if gap <= tol || iter >= maxIter {
			break
		}
		if err := ctx.Err(); err != nil {
			return ll, gap, iter, err
		}
		iter++
		// The binding set (Bertsekas' projected Newton): coordinates at
		// or near 0 whose gradient pushes them out, G_x ≤ 1.
		for x := range bound {
			bound[x] = theta[x] <= bindingTol && grad[x] <= 1
		}
		if inner != nil {
			step := iter
			st.inner = func(f float64) { inner(step, f) }
		}
		t, ok, err := st.step(ctx, m, theta, grad, bound, trial, next, ll, gap)
		if err != nil {
			return ll, gap, iter, err
		}
		if !ok || !st.adapt(t) {
			break
		}
		if t > 0 {
			ll, gap = m.gradient(theta, grad)
			if progress != nil {
				progress(iter, ll, gap)
			}
		}
	}
	return ll, gap, iter, nil
}

// newtonState is what polish carries from one step to the next: the
// Levenberg–Marquardt damping, the CG iteration bound, and whether the
// last step was cut short.
type newtonState struct {
	cgParams
	cut bool
}

// cgParams are what a Newton step's solve needs besides the point: the
// damping, the gap tolerance, the CG iteration bound, and inner, if not
// nil, called with the fraction of the conjugate gradients done.
type cgParams struct {
	damp, tol float64
	limit     int
	inner     func(float64)
}

// step takes the Newton step from θ (projectedStep) and returns its
// length t, 0 when it improved nothing, or false when no step is
// defined. After a cut step, the coordinates the step would take below
// zero while their gradient pushes them out are bound (rebind) and the
// step is solved again on the smaller face; when that one improves
// nothing, the first is taken as it was.
func (st *newtonState) step(ctx context.Context, m curvedModel, theta, grad []float64, bound []bool, trial, next []float64, ll, gap float64) (float64, bool, error) {
	d, err := newtonDirection(ctx, m, theta, grad, bound, st.cgParams)
	if err != nil || d == nil {
		return 0, false, err
	}
	if smaller := slices.Clone(bound); st.cut && rebind(theta, grad, d, smaller) {
		d2, err := newtonDirection(ctx, m, theta, grad, smaller, st.cgParams)
		if err != nil {
			return 0, false, err
		}
		if d2 != nil {
			if t := projectedStep(m, theta, d2, smaller, trial, next, ll, gap); t > 0 {
				return t, true, nil
			}
		}
	}
	return projectedStep(m, theta, d, bound, trial, next, ll, gap), true, nil
}

// adapt updates the state after a step of length t (0: no step) and
// reports whether polish should go on.
func (st *newtonState) adapt(t float64) bool {
	st.cut = t < 1
	switch {
	case t == 0:
		// Where H is singular (fewer distinct reports than symbols) the
		// Newton step is wild: damp it towards a gradient step
		// (Levenberg–Marquardt) and try again.
		st.damp *= 1e3
		return st.damp <= 1
	case t < 0.25:
		// A step cut short asks for more damping, a full one for less.
		st.damp = math.Min(st.damp*100, 1)
		st.limit = max(st.limit/2, cgFirst)
	case t == 1:
		st.damp = math.Max(st.damp/10, minDamp)
		st.limit = min(st.limit*2, cgSteps)
	}
	return true
}

// newtonDirection returns polish's step d over all K symbols (0 off the
// free set), or nil when none is defined.
func newtonDirection(ctx context.Context, m curvedModel, theta, grad []float64, bound []bool, p cgParams) ([]float64, error) {
	if c, ok := m.(*columns); ok && c.polishable() {
		return c.newtonStep(theta, grad, bound, p.damp), nil
	}
	return cgStep(ctx, m, theta, grad, bound, p)
}

// projectedStep moves θ along d: coordinates the step takes below 0, and
// the bound ones, are set to 0, and the step length t halves from 1
// until L does not fall. Near the MLE, L is flat to within its rounding:
// there a step is judged by the gap it leaves. It returns t, or 0 when
// no step of 30 halvings improved θ, which is then unchanged; trial and
// next are scratch.
func projectedStep(m emModel, theta, d []float64, bound []bool, trial, next []float64, ll, gap float64) float64 {
	t := 1.0
	for range 30 {
		for x := range trial {
			trial[x] = math.Max(theta[x]+t*d[x], 0)
			if bound[x] {
				trial[x] = 0
			}
		}
		floats.Scale(1/floats.Sum(trial), trial)
		lt, gt := m.step(trial, next)
		if lt > ll || lt >= ll-likelihoodUlps*math.Abs(ll) && gt < gap {
			copy(theta, trial)
			return t
		}
		t /= 2
	}
	return 0
}

// gradient sets grad = ∇L(θ) and returns L(θ) and the gap.
func (c *columns) gradient(theta, grad []float64) (ll, gap float64) {
	return gradientWith(c.add, theta, grad)
}

// cgSteps bounds the conjugate-gradient iterations of one Newton step;
// the first step of polish may take cgFirst, and the bound doubles after
// each full step, halves after each one cut short.
const (
	cgSteps = 500
	cgFirst = 40
)

// cgStep returns polish's Newton step without forming the Hessian, by
// conjugate gradients on products with B = −∇²L(θ) (two applications of
// each mechanism's operator a product): d solves
//
//	(B + damp·W⁻¹) d = G − μ·1 on the free set F,   1ᵀd = 0,   d = 0 off F,
//
// with W = diag(w), w_x = max(θ_x, 1/(100K)) on F. W also preconditions
// the system: on the support near the MLE, I − W·B is the Jacobian of
// the EM map, whose eigenvalues lie in [0, 1), so W·B's lie in (0, 1]
// and CG needs about the square root of the steps EM would. The
// constraint is kept by projecting each preconditioned residual onto
// 1ᵀz = 0 in W's metric (projected preconditioned CG; Gould, Hribar and
// Nocedal 2001), which also finds μ. CG stops once the preconditioned
// residual has fallen by the forcing factor η = min(0.1, ρ₀^¼), ρ₀ its
// initial square (Eisenstat and Walker 1996: the Newton steps converge
// superlinearly), or after cgSteps iterations; ctx cancels.
func cgStep(ctx context.Context, m curvedModel, theta, grad []float64, bound []bool, cp cgParams) ([]float64, error) {
	damp := cp.damp
	k := len(theta)
	m.at(theta)
	w := metric(m, theta, bound)
	d, r, z, p, bp := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	for x := range r {
		if !bound[x] {
			// The gradient of ½dᵀBd − Gᵀd at d = 0, less 1: constants
			// leave z unchanged, and G − 1 is small near the MLE,
			// where −G would lose its digits.
			r[x] = 1 - grad[x]
		}
	}
	rho, dev := project(z, r, w)
	// The step should leave the model's gradient within ηδ₀ of flat on F,
	// δ₀ = max|G_x − λ| now, but need not go below a quarter of tol.
	stop := math.Max(cp.tol/4, dev*math.Min(0.1, math.Sqrt(dev)))
	dev0 := dev
	floats.ScaleTo(p, -1, z)
	for i := range cp.limit {
		if dev <= stop {
			break
		}
		if cp.inner != nil && i > 0 {
			// Done: the residual's fall on a log scale, or the
			// iterations against their bound, whichever is further.
			cp.inner(math.Max(float64(i)/float64(cp.limit), math.Log(dev0/dev)/math.Log(dev0/stop)))
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m.hessVec(p, bp)
		for x := range bp {
			if w[x] == 0 {
				bp[x] = 0
				continue
			}
			bp[x] += damp * p[x] / w[x]
		}
		curv := floats.Dot(p, bp)
		if curv <= 0 {
			break
		}
		alpha := rho / curv
		floats.AddScaled(d, alpha, p)
		floats.AddScaled(r, alpha, bp)
		var next float64
		next, dev = project(z, r, w)
		beta := next / rho
		rho = next
		for x := range p {
			p[x] = beta*p[x] - z[x]
		}
	}
	return d, nil
}

// project sets z = W(r − λ1), λ = Σ_x w_x r_x / Σ_x w_x, so that Σ z = 0
// and z = 0 where w = 0. It returns rᵀz = Σ_x w_x (r_x − λ)², summed in
// that form, which cannot cancel, and max |r_x − λ| where w_x > 0.
func project(z, r, w []float64) (rho, dev float64) {
	lambda := floats.Dot(w, r) / floats.Sum(w)
	for x := range z {
		if w[x] == 0 {
			z[x] = 0
			continue
		}
		e := r[x] - lambda
		z[x] = w[x] * e
		rho += z[x] * e
		dev = math.Max(dev, math.Abs(e))
	}
	return rho, dev
}

// newtonStep returns the Newton direction d over all K symbols (0 off
// the free set), or nil when the system is singular.
func (c *columns) newtonStep(theta, grad []float64, bound []bool, damp float64) []float64 {
	var free []int
	for x := range theta {
		if !bound[x] {
			free = append(free, x)
		}
	}
	f := len(free)
	// H = X Xᵀ with column i of X the group's g_F·√(c/n)/(θ·g), formed
	// by one blocked symmetric rank-k update.
	xs := mat.NewDense(f, len(c.col), nil)
	for i, col := range c.col {
		w := math.Sqrt(c.count[i]/c.n) / floats.Dot(theta, col)
		for a, x := range free {
			xs.Set(a, i, w*col[x])
		}
	}
	h := mat.NewSymDense(f, nil)
	h.SymOuterK(1, xs)
	gf := make([]float64, f)
	// A ridge of damp times the largest curvature keeps the
	// factorisation defined where H is singular (symbols no report tells
	// apart).
	ridge := 0.0
	for a := range f {
		ridge = math.Max(ridge, h.At(a, a))
	}
	for a := range f {
		h.SetSym(a, a, h.At(a, a)+damp*ridge)
	}
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil
	}
	for a, x := range free {
		gf[a] = grad[x]
	}
	var hg, h1 mat.VecDense
	ones := fill(nil, f, 1)
	if ch.SolveVecTo(&hg, mat.NewVecDense(f, gf)) != nil || ch.SolveVecTo(&h1, mat.NewVecDense(f, ones)) != nil {
		return nil
	}
	mu := floats.Sum(hg.RawVector().Data) / floats.Sum(h1.RawVector().Data)
	d := make([]float64, len(theta))
	for a, x := range free {
		d[x] = hg.AtVec(a) - mu*h1.AtVec(a)
	}
	return d
}

// rebind adds to bound the free coordinates that the step d takes to 0
// or below while their gradient pushes them out (G_x ≤ 1), and reports
// whether it added any.
func rebind(theta, grad, d []float64, bound []bool) bool {
	added := false
	for x, b := range bound {
		if !b && theta[x]+d[x] <= 0 && grad[x] <= 1 {
			bound[x], added = true, true
		}
	}
	return added
}
