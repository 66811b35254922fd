package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// CEMOptions tune CorrectedEM.
type CEMOptions struct {
	// Alpha fixes the weight α of the correction; 0 chooses it by
	// simulation (CEM §4.3).
	Alpha float64
	// Lambda is the Tikhonov term λ of CEM eq. (32); default 1e−3.
	Lambda float64
	// Printed uses ∇²s_n as CEM eq. (24) and (61) print it,
	// g⊗g⊗g/(p·g)³, instead of the exact derivative of eq. (23),
	// 2·g⊗g⊗g/(p·g)³; for reproducing the paper's figures.
	Printed bool
	// Seed seeds the simulation that chooses α.
	Seed uint64
}

// alphaGrid is CEM §5.1's grid {c·10^−k : c = 1..9, k = 1..10}.
func alphaGrid() []float64 {
	var out []float64
	for k := 1; k <= 10; k++ {
		for c := 1; c <= 9; c++ {
			out = append(out, float64(c)*math.Pow(10, -float64(k)))
		}
	}
	return out
}

// CorrectedEM is CEM Algorithm 2: the EM estimate θ̂ (GIBU, started from
// the uniform distribution so that it is the MLE), corrected by the
// plug-in second-order bias â₋₁ of CEM eq. (28)–(32),
//
//	θ̃ = θ̂ − α â₋₁,
//
// then clipped and renormalised. α is opt.Alpha, or chosen by CEM §4.3's
// simulation: data X' are drawn from p' (the pooled frequencies of the
// reports when every mechanism reports symbols of the input alphabet,
// else θ̂), sanitised by the same mechanisms for the same numbers of
// users, estimated and corrected, and the α of the grid
// {c·10^−k : c = 1..9, k = 1..10} that brings the corrected estimate
// closest to p' in squared error is taken. The result's Alpha says which.
func CorrectedEM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, em EMOptions, opt CEMOptions) (*Estimate, error) {
	if len(g.List) > 0 {
		if err := checkCEMSize(len(g.List), mechs[g.List[0].Mech].Inputs()); err != nil {
			return nil, err
		}
	}
	c, err := newColumns(mechs, g, s)
	if err != nil {
		return nil, err
	}
	est, err := runEM(ctx, c, em)
	if err != nil {
		return nil, err
	}
	a, err := BiasCorrection(c, est.Theta, opt.Lambda, opt.Printed)
	if err != nil {
		return nil, err
	}
	alpha := opt.Alpha
	if alpha == 0 {
		em.Progress = nil
		if alpha, err = chooseAlpha(ctx, mechs, g, s, est.Theta, em, opt); err != nil {
			return nil, err
		}
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("core: cem: α must be positive and finite, got %v", alpha)
	}
	est.Theta = corrected(est.Theta, a, alpha)
	est.Alpha = alpha
	est.LogLik, _ = c.step(est.Theta, make([]float64, c.k))
	return est, nil
}

// corrected returns clip-and-renormalise(θ − α a).
func corrected(theta, a []float64, alpha float64) []float64 {
	t := make([]float64, len(theta))
	floats.AddScaledTo(t, theta, -alpha, a)
	return ClipNormalize(t)
}

// maxCEMBytes bounds the dense matrices of corrected EM: 2 GB.
const maxCEMBytes = 2e9

// checkCEMSize refuses, before anything is allocated, a corrected EM
// whose dense matrices exceed maxCEMBytes: the likelihood columns and
// BiasCorrection's five G×K matrices, and its four K×K ones (Ŝ, its
// regularised copy, Q̂, B).
func checkCEMSize(groups, k int) error {
	g, kk := float64(groups), float64(k)
	need := 8 * (6*g*kk + 4*kk*kk)
	if need <= maxCEMBytes {
		return CheckMemory("corrected EM", need)
	}
	return &TooLargeError{What: "corrected EM (its bias correction, CEM eq. (28)–(32), is dense)",
		Need:  fmt.Sprintf("%.1f GB for %d report groups over %d symbols", need/1e9, groups, k),
		Limit: fmt.Sprintf("%.0f GB; GIBU estimates without the correction in memory linear in K", maxCEMBytes/1e9)}
}

// BiasCorrection returns â₋₁ of CEM eq. (28) at p for the grouped
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
func BiasCorrection(c *columns, p []float64, lambda float64, printed bool) ([]float64, error) {
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

// chooseAlpha runs CEM §4.3's simulation and returns the α of the grid
// whose corrected estimate is closest to p'.
func chooseAlpha(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, theta []float64, em EMOptions, opt CEMOptions) (float64, error) {
	p := simulationTruth(mechs, g, theta)
	rng := rand.New(rand.NewPCG(opt.Seed, 0x63656d))
	sim, err := SimulateGroups(ctx, rng, mechs, g.Users, p)
	if err != nil {
		return 0, err
	}
	c, err := newColumns(mechs, sim, s)
	if err != nil {
		return 0, err
	}
	est, err := runEM(ctx, c, em)
	if err != nil {
		return 0, err
	}
	a, err := BiasCorrection(c, est.Theta, opt.Lambda, opt.Printed)
	if err != nil {
		return 0, err
	}
	best, bestErr := 0.0, math.Inf(1)
	for _, alpha := range alphaGrid() {
		t := corrected(est.Theta, a, alpha)
		if e := floats.Distance(t, p, 2); e < bestErr {
			best, bestErr = alpha, e
		}
	}
	return best, nil
}

// simulationTruth is CEM §4.3's p': the pooled frequencies of the
// reports when every mechanism in use reports symbols of the input
// alphabet, else θ̂.
func simulationTruth(mechs []Mechanism, g *Groups, theta []float64) []float64 {
	k := len(theta)
	for j, m := range mechs {
		c, ok := m.(Channel)
		if g.Users[j] > 0 && (!ok || c.Outputs() != k) {
			return theta
		}
	}
	p := make([]float64, k)
	for _, gr := range g.List {
		p[gr.Report.Symbol] += float64(gr.Count) / float64(g.N())
	}
	return p
}

// MethodCEM names the corrected EM (CEM Alg. 2).
const MethodCEM Method = "cem"

// cemEstimator is the corrected EM, registered in registry.
var cemEstimator = Estimator{Method: MethodCEM, Title: "Corrected EM", Help: "EM with CEM's error correction (CEM Alg. 2)",
	Refuses: CapPersonal, Alpha: true, Cost: CostEM, ownLogLik: true,
	run: func(e *estimation) (*Estimate, error) {
		return CorrectedEM(e.ctx, e.mechs, e.g, e.s, e.opt.EM, e.opt.CEM)
	}}
