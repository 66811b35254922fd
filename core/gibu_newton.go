package core

import (
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// NewtonBudget bounds the work of a Newton step of polish solved
// densely, reports × |F|² multiply-adds to form the Hessian on the free
// face F: 4·10⁹, about a second on two cores (0.6 s for 1,068 symbols
// and 2,598 reports). Larger faces are solved by conjugate gradients.
const NewtonBudget = 4e9

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
// by a dense Cholesky factorisation of H when the face is small enough
// (faceHessian), else by conjugate gradients on Hessian products
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
	return polishFrom(ctx, m, theta, tol, iter, maxIter, progress, inner, &faceHessian{})
}

// polishFrom is polish with a Hessian kept from elsewhere, which it
// updates: a bootstrap replicate's steps are preconditioned by the one
// formed at the estimate (borrowHessian), a profile's solves by the one
// its last solve formed (profile.go).
func polishFrom(ctx context.Context, m curvedModel, theta []float64, tol float64, iter, maxIter int, progress func(int, float64, float64), inner func(int, float64),
	face *faceHessian) (ll, gap float64, iters int, err error) {
	k := m.dims()
	grad, next, trial := make([]float64, k), make([]float64, k), make([]float64, k)
	bound := make([]bool, k)
	st := &newtonState{cgParams: cgParams{damp: minDamp, tol: tol, limit: cgFirst}, face: *face}
	defer func() { *face = st.face }()
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
		if !ok || !st.adapt(t.t) {
			break
		}
		if t.t > 0 {
			// The line search's last evaluation was at the new θ: its
			// gradient is in next.
			ll, gap = t.ll, t.gap
			copy(grad, next)
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
	cut  bool
	face faceHessian
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
func (st *newtonState) step(ctx context.Context, m curvedModel, theta, grad []float64, bound []bool, trial, next []float64, ll, gap float64) (taken, bool, error) {
	d, err := newtonDirection(ctx, m, theta, grad, bound, st.cgParams, &st.face)
	if err != nil || d == nil {
		return taken{}, false, err
	}
	if smaller := slices.Clone(bound); st.cut && rebind(theta, grad, d, smaller) {
		d2, err := newtonDirection(ctx, m, theta, grad, smaller, st.cgParams, &st.face)
		if err != nil {
			return taken{}, false, err
		}
		if d2 != nil {
			if t := projectedStep(m, theta, d2, smaller, trial, next, ll, gap); t.t > 0 {
				return t, true, nil
			}
		}
	}
	return projectedStep(m, theta, d, bound, trial, next, ll, gap), true, nil
}

// taken is a step taken by projectedStep: its length t (0: none) and
// the log-likelihood and gap at the point it reached.
type taken struct{ t, ll, gap float64 }

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
// free set F), or nil when none is defined. With a Hessian formed
// densely on a face that holds F (faceHessian; a face that lacks a few
// symbols of F is extended to them), the step is solved with it exactly
// when it was formed at θ, else by conjugate gradients preconditioned
// with it, if they converge within lagSteps (on NYC's [IBU]_R they
// always did, in 11 to 26 steps a mechanism, where 3 to 6 Hessians were
// formed instead of 10 to 18); otherwise
// the Hessian is formed again when the face is small enough, and else
// the step is solved by conjugate gradients preconditioned by the
// diagonal metric.
func newtonDirection(ctx context.Context, m curvedModel, theta, grad []float64, bound []bool, p cgParams, cache *faceHessian) ([]float64, error) {
	free := freeSet(bound)
	if !cache.at(theta) {
		if _, err := cache.extend(ctx, m, free); err != nil {
			return nil, err
		}
	}
	pr, ridge, ok := cache.factorAt(theta, free, p.damp)
	if ok {
		if cache.at(theta) {
			return pr.solve(grad), nil
		}
		m.at(theta)
		lp := p
		lp.limit = lagSteps
		d, reached, err := cgStep(ctx, m, theta, grad, bound, lp, pr, ridge)
		if err != nil || reached {
			return d, err
		}
	}
	built, err := cache.build(ctx, m, theta, free)
	if err != nil {
		return nil, err
	}
	if built {
		if pr, ok := cache.factor(free, faceRidge(theta, free, p.damp)); ok {
			return pr.solve(grad), nil
		}
	}
	m.at(theta)
	w := metric(m, theta, bound)
	// The diagonal preconditioner damps in its own metric: damp·diag(w)⁻¹.
	wRidge := make([]float64, len(w))
	for x, v := range w {
		if v > 0 {
			wRidge[x] = p.damp / v
		}
	}
	d, _, err := cgStep(ctx, m, theta, grad, bound, p, diagonalProjector(w), wRidge)
	return d, err
}

// projectedStep moves θ along d: coordinates the step takes below 0, and
// the bound ones, are set to 0, and the step length t halves from 1
// until L does not fall. Near the MLE, L is flat to within its rounding:
// there a step is judged by the gap it leaves. It returns t, or 0 when
// no step of 30 halvings improved θ, which is then unchanged, with the
// log-likelihood and gap of the new θ, whose gradient it leaves in next;
// trial is scratch.
func projectedStep(m curvedModel, theta, d []float64, bound []bool, trial, next []float64, ll, gap float64) taken {
	t := 1.0
	for range 30 {
		for x := range trial {
			trial[x] = math.Max(theta[x]+t*d[x], 0)
			if bound[x] {
				trial[x] = 0
			}
		}
		floats.Scale(1/floats.Sum(trial), trial)
		lt, gt := m.gradient(trial, next)
		if lt > ll || lt >= ll-likelihoodUlps*math.Abs(ll) && gt < gap {
			copy(theta, trial)
			return taken{t: t, ll: lt, gap: gt}
		}
		t /= 2
	}
	return taken{}
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
//	(B + R) d = G − μ·1 on the free set F,   1ᵀd = 0,   d = 0 off F,
//
// R = diag(ridge), a damping, and reports whether it got there within
// cp.limit iterations. The constraint is kept by projecting each
// preconditioned residual onto 1ᵀz = 0 in the preconditioner's metric
// (projected preconditioned CG; Gould, Hribar and Nocedal 2001), which
// also finds μ; pr is diag(w), w of metric (with W = diag(θ), EM's own
// metric, the eigenvalues of W·B on the support near the MLE lie in
// (0, 1], being those of I minus the EM map's Jacobian, and CG needs
// about the square root of the steps EM would), or the inverse of a
// Hessian formed densely on the same face at an earlier point
// (choleskyProjector), which takes a few iterations where the Hessian
// changed little. CG stops once the largest deviation of the model's
// gradient on F has fallen by the forcing factor η = min(0.1, δ₀^½),
// δ₀ its initial value (Eisenstat and Walker 1996: the Newton steps
// converge superlinearly), or after cp.limit iterations; ctx cancels.
// m.at(θ) must have been called.
func cgStep(ctx context.Context, m curvedModel, theta, grad []float64, bound []bool, cp cgParams, pr projector, ridge []float64) ([]float64, bool, error) {
	k := len(theta)
	d, r, z, p, bp := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	for x := range r {
		if !bound[x] {
			// The gradient of ½dᵀBd − Gᵀd at d = 0, less 1: constants
			// leave z unchanged, and G − 1 is small near the MLE,
			// where −G would lose its digits.
			r[x] = 1 - grad[x]
		}
	}
	rho, dev := pr.project(z, r)
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
			return nil, false, err
		}
		m.hessVec(p, bp)
		for x := range bp {
			if bound[x] {
				bp[x] = 0
				continue
			}
			bp[x] += ridge[x] * p[x]
		}
		curv := floats.Dot(p, bp)
		if curv <= 0 {
			break
		}
		alpha := rho / curv
		floats.AddScaled(d, alpha, p)
		floats.AddScaled(r, alpha, bp)
		var next float64
		next, dev = pr.project(z, r)
		beta := next / rho
		rho = next
		for x := range p {
			p[x] = beta*p[x] - z[x]
		}
	}
	return d, dev <= stop, nil
}

// A projector is cgStep's preconditioner P on the free set F.
type projector interface {
	// project sets z = P(r − λ1) on F and 0 off it, λ = 1ᵀPr / 1ᵀP1
	// so that Σ z = 0, and returns rᵀz ≥ 0 and max_F |r_x − λ|.
	project(z, r []float64) (rho, dev float64)
}

// diagonalProjector is P = diag(w), F where w > 0.
type diagonalProjector []float64

func (w diagonalProjector) project(z, r []float64) (rho, dev float64) { return project(z, r, w) }

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
