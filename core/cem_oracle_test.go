package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// denseBias is the test oracle of cemModel.biasCorrection: it returns â₋₁ of CEM eq. (28) at p for the grouped
// reports, with Q̂ = −(Ŝ + λI)⁻¹ (eq. 32) and λ = 1e−3 when lambda is 0.
// Writing s_j = g_j/(p·g_j) for group j of c_j users (the likelihood's
// scale cancels), N = Σ c_j and w_j = Q̂ s_j:
//
//	Ŝ = (1/N) Σ c_j s_j s_jᵀ                                      (31)
//	(1/N) Σ c_j V̂_j w_j = Ŝ·(1/N) Σ c_j w_j − (1/N) Σ c_j (s_j·w_j) s_j (30)
//	B = Σ c_j w_j w_jᵀ,  [AB]_i = f Σ c_j s_ji (s_jᵀ B s_j)         (60)–(64)
//	â₋₁ = (1/N) Q̂ { (1/N) Σ c_j V̂_j w_j − AB/(2N²) }
//
// with f = 2 for the exact ∇²s = 2 g⊗g⊗g/(p·g)³ and f = 1 for the form
// the paper prints. This is CEM Appendix B's O(N K²) evaluation over
// groups instead of users; no K×K×K tensor is formed.
func denseBias(c *columns, p []float64, lambda float64, printed bool) ([]float64, error) {
	if lambda == 0 {
		lambda = 1e-3
	}
	k, G := c.k, len(c.col)
	n := c.n
	sm := mat.NewDense(G, k, nil)  // rows s_j
	swt := mat.NewDense(G, k, nil) // rows c_j s_j
	for j, col := range c.col {
		m := floats.Dot(p, col)
		if m <= 0 {
			return nil, errors.New("core: cem: the estimate gives a report probability 0")
		}
		for x, v := range col {
			sm.Set(j, x, v/m)
			swt.Set(j, x, c.count[j]*v/m)
		}
	}
	var S mat.Dense
	S.Mul(sm.T(), swt)
	S.Scale(1/n, &S)
	reg := mat.DenseCopyOf(&S)
	for x := range k {
		reg.Set(x, x, reg.At(x, x)+lambda)
	}
	var Q mat.Dense
	if err := Q.Inverse(reg); err != nil {
		return nil, fmt.Errorf("core: cem: Ŝ + λI is singular: %w", err)
	}
	Q.Scale(-1, &Q)
	var W mat.Dense // rows w_j = Q s_j (Q symmetric)
	W.Mul(sm, &Q)
	meanW := make([]float64, k)
	corr := make([]float64, k) // (1/N) Σ c_j (s_j·w_j) s_j
	for j := range G {
		sj, wj := sm.RawRowView(j), W.RawRowView(j)
		floats.AddScaled(meanW, c.count[j]/n, wj)
		floats.AddScaled(corr, c.count[j]*floats.Dot(sj, wj)/n, sj)
	}
	term1 := mat.NewVecDense(k, nil)
	term1.MulVec(&S, mat.NewVecDense(k, meanW))
	term1.SubVec(term1, mat.NewVecDense(k, corr))
	// B = Σ c_j w_j w_jᵀ.
	cw := mat.DenseCopyOf(&W)
	for j := range G {
		floats.Scale(c.count[j], cw.RawRowView(j))
	}
	var B, SB mat.Dense
	B.Mul(W.T(), cw)
	SB.Mul(sm, &B)
	f := 2.0
	if printed {
		f = 1
	}
	ab := make([]float64, k)
	for j := range G {
		sj := sm.RawRowView(j)
		u := floats.Dot(SB.RawRowView(j), sj)
		floats.AddScaled(ab, f*c.count[j]*u, sj)
	}
	floats.Scale(1/(2*n*n), ab)
	term1.SubVec(term1, mat.NewVecDense(k, ab))
	out := mat.NewVecDense(k, nil)
	out.MulVec(&Q, term1)
	out.ScaleVec(1/n, out)
	return out.RawVector().Data, nil
}

// denseCorrectedEM is corrected EM as issue 31 found it, the baseline of
// BenchmarkCorrectedEM: EM on one likelihood column per report group,
// then denseBias at the estimate and at the simulation's (with the same
// simulation as CorrectedEM), without the size limit that refused it
// beyond 2 GB.
func denseCorrectedEM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, em EMOptions, opt CEMOptions) (*Estimate, error) {
	run := func(g *Groups) (*columns, *Estimate, []float64, error) {
		c, err := newColumns(mechs, g, s)
		if err != nil {
			return nil, nil, nil, err
		}
		est, err := runEM(ctx, c, em)
		if err != nil {
			return nil, nil, nil, err
		}
		a, err := denseBias(c, est.Theta, opt.Lambda, opt.Printed)
		return c, est, a, err
	}
	c, est, a, err := run(g)
	if err != nil {
		return nil, err
	}
	p := simulationTruth(mechs, g, est.Theta)
	sim, err := SimulateGroups(ctx, rand.New(rand.NewPCG(opt.Seed, 0x63656d)), mechs, g.Users, p)
	if err != nil {
		return nil, err
	}
	_, simEst, simA, err := run(sim)
	if err != nil {
		return nil, err
	}
	losses := make([]float64, len(alphaGrid()))
	for j, alpha := range alphaGrid() {
		d := floats.Distance(corrected(simEst.Theta, simA, alpha), p, 2)
		losses[j] = d * d
	}
	est.Alpha = alphaGrid()[pickAlpha(losses)]
	est.Theta = corrected(est.Theta, a, est.Alpha)
	est.LogLik, _ = c.step(est.Theta, make([]float64, c.k))
	return est, nil
}
