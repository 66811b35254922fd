package core

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// EMOptions tune GIBU and the other EM estimators. Zero values select the
// defaults.
type EMOptions struct {
	// Tol is δ: iterations stop when the normalised log-likelihood changes
	// by less than δ over one accelerated cycle (three EM steps); default
	// 1e−14, which brings the known vectors of the tests within 1e−7.
	Tol float64
	// MaxIter bounds the EM steps; default 100,000.
	MaxIter int
	// Init is θ⁰, which must be positive where the MLE may be; default
	// uniform.
	Init []float64
	// Plain turns off the SQUAREM acceleration: every iteration is then
	// one step of FW Algorithm 1 and Tol applies per step.
	Plain bool
	// Progress, when not nil, is called once a cycle with the EM steps
	// done and the normalised log-likelihood of the current estimate.
	Progress func(iter int, loglik float64)
}

// An Estimate is the result of an estimator.
type Estimate struct {
	// Theta is the estimated distribution over the K input symbols.
	Theta []float64
	// LogLik is the normalised log-likelihood (1/n) Σ c log P(report | θ)
	// of Theta; Iterations the EM steps run (0 for closed forms);
	// Converged whether the stopping rule was met before MaxIter.
	LogLik     float64
	Iterations int
	Converged  bool
	// Alpha is the weight of the corrected EM's correction.
	Alpha float64
}

// emModel is the EM map of a set of grouped reports.
type emModel interface {
	// dims returns K.
	dims() int
	// step sets next = θ ⊙ (1/n) Σ_groups c·g/(θ·g) and returns the
	// normalised log-likelihood L(θ) = (1/n) Σ c·log(θ·g).
	step(theta, next []float64) float64
}

// step is FW Algorithm 1's update on the likelihood columns.
func (c *columns) step(theta, next []float64) float64 {
	clear(next)
	ll := 0.0
	for i, g := range c.col {
		m := floats.Dot(theta, g)
		if m <= 0 {
			// θ has no mass where this report is possible.
			return math.Inf(-1)
		}
		ll += c.count[i] * (math.Log(m) + c.scale[i])
		floats.AddScaled(next, c.count[i]/(c.n*m), g)
	}
	for x := range next {
		next[x] *= theta[x]
	}
	return ll / c.n
}

func (c *columns) dims() int { return c.k }

// GIBU returns the maximum-likelihood estimate of the distribution of the
// users' data from their grouped reports, whatever mixture of mechanisms
// they used: FW Algorithm 1 (= CEM eq. 14 over per-user channels),
//
//	θ_x ← θ_x · (1/n) Σ_groups c · g_x / (θ·g),
//
// with g the likelihood column of a group's report. The fixed point is
// the MLE (FW Theorem 1). Plain EM crawls near the boundary of the
// simplex, so each cycle of two EM steps is extrapolated by SQUAREM
// (Varadhan & Roland 2008, scheme S3) and followed by a third step; the
// extrapolation is kept in the simplex (see squarem) and dropped
// when it would lower the likelihood, so the log-likelihood of the
// iterates never decreases. ctx cancels.
func GIBU(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, opt EMOptions) (*Estimate, error) {
	c, err := newColumns(mechs, g, s)
	if err != nil {
		return nil, err
	}
	return runEM(ctx, c, opt)
}

// runEM iterates the EM map of m from opt.Init.
func runEM(ctx context.Context, m emModel, opt EMOptions) (*Estimate, error) {
	k := m.dims()
	if opt.Tol <= 0 {
		opt.Tol = 1e-14
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 100000
	}
	theta := fill(nil, k, 1/float64(k))
	if opt.Init != nil {
		if len(opt.Init) != k {
			return nil, fmt.Errorf("core: initial distribution has %d entries for %d symbols", len(opt.Init), k)
		}
		copy(theta, opt.Init)
		floats.Scale(1/floats.Sum(theta), theta)
	}
	t1, t2, t3, r, v := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	est := &Estimate{}
	prev := math.NaN()
	for est.Iterations < opt.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l0 := m.step(theta, t1)
		est.Iterations++
		if math.IsInf(l0, -1) {
			return nil, errors.New("core: the initial distribution gives some report probability 0; start from a positive one")
		}
		if opt.Progress != nil {
			opt.Progress(est.Iterations, l0)
		}
		if math.Abs(l0-prev) < opt.Tol {
			est.Converged = true
			est.Theta, est.LogLik = theta, l0
			return est, nil
		}
		prev = l0
		if opt.Plain {
			theta, t1 = t1, theta
			continue
		}
		l1 := m.step(t1, t2)
		est.Iterations++
		if !squarem(theta, t1, t2, r, v, t3) {
			theta, t2 = t2, theta
			continue
		}
		// t3 is the extrapolated point; one EM step from it.
		lp := m.step(t3, t1)
		est.Iterations++
		if lp >= l1 {
			theta, t1 = t1, theta
		} else {
			theta, t2 = t2, theta
		}
	}
	est.Theta = theta
	est.LogLik = m.step(theta, t1)
	return est, nil
}

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
