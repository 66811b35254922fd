package core

import (
	"context"
	"math"

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

// polishable reports whether polish may run on c.
func (c *columns) polishable() bool {
	return float64(len(c.col))*float64(c.k)*float64(c.k) <= newtonBudget
}

// polish improves θ towards the MLE by Newton steps on the face of the
// simplex that θ's free set F spans: the symbols with θ_x > 0 and those
// whose gradient G_x = ∇_x L(θ) exceeds 1 (the KKT conditions want them
// in). With H = (1/n) Σ c·g_F g_Fᵀ/(θ·g)², the negated Hessian of L on
// F, the step d solves
//
//	H d = G_F − μ·1,   1ᵀd = 0,   μ = 1ᵀH⁻¹G_F / 1ᵀH⁻¹1,
//
// cut short where a coordinate would turn negative (it then leaves F),
// and halved until the likelihood does not decrease, so L never falls.
// Near the MLE the steps converge quadratically, where EM crawls. It
// stops when the certified gap max_x G_x − 1 (see emUpdate) is at most
// tol, after newtonSteps steps, or when a step no longer raises L. It
// returns θ (updated in place), L(θ), the gap and iter plus the steps.
func (c *columns) polish(ctx context.Context, theta []float64, tol float64, iter int) (ll, gap float64, iters int, err error) {
	k := c.k
	grad, next, trial := make([]float64, k), make([]float64, k), make([]float64, k)
	bound := make([]bool, k)
	damp := minDamp
	ll, gap = c.gradient(theta, grad)
	for range newtonSteps {
		if gap <= tol {
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
		d := c.newtonStep(theta, grad, bound, damp)
		if d == nil {
			break
		}
		t := c.projectedStep(theta, d, bound, trial, next, ll, gap)
		improved := t > 0
		if !improved {
			// Where H is singular (fewer distinct reports than symbols)
			// the Newton step is wild: damp it towards a gradient step
			// (Levenberg–Marquardt) and try again.
			if damp *= 1e3; damp > 1 {
				break
			}
			continue
		}
		// Levenberg–Marquardt: a step cut short asks for more damping, a
		// full one for less.
		switch {
		case t < 0.25:
			damp = math.Min(damp*100, 1)
		case t == 1:
			damp = math.Max(damp/10, minDamp)
		}
		ll, gap = c.gradient(theta, grad)
	}
	return ll, gap, iter, nil
}

// projectedStep moves θ along d: coordinates the step takes below 0, and
// the bound ones, are set to 0, and the step length t halves from 1
// until L does not fall. Near the MLE, L is flat to within its rounding:
// there a step is judged by the gap it leaves. It returns t, or 0 when
// no step of 30 halvings improved θ, which is then unchanged; trial and
// next are scratch.
func (c *columns) projectedStep(theta, d []float64, bound []bool, trial, next []float64, ll, gap float64) float64 {
	t := 1.0
	for range 30 {
		for x := range trial {
			trial[x] = math.Max(theta[x]+t*d[x], 0)
			if bound[x] {
				trial[x] = 0
			}
		}
		floats.Scale(1/floats.Sum(trial), trial)
		lt, gt := c.step(trial, next)
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
	clear(grad)
	ll = c.add(theta, grad)
	return ll, floats.Max(grad) - 1
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
