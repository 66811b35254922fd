package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
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
	// Progress, when not nil, is called during the bias correction with
	// the name of its stage and the fraction of the stage done.
	Progress func(stage string, done float64)
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
// plug-in second-order bias â₋₁ of CEM eq. (28)–(32) (cem_bias.go),
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
// The estimate's Gap and Converged are those of θ̂, its LogLik that of θ̃.
func CorrectedEM(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, em EMOptions, opt CEMOptions) (*Estimate, error) {
	cm, err := newCEMModel(mechs, g, s, columnBudget)
	if err != nil {
		return nil, err
	}
	if err := checkCEMSize(cm.k); err != nil {
		return nil, err
	}
	m, err := newModel(mechs, g, s, columnBudget)
	if err != nil {
		return nil, err
	}
	est, err := gibuRun(ctx, m, mechs, g, em)
	if err != nil {
		return nil, err
	}
	// One K×K work space for both bias corrections (650 MB at 9,024
	// cells).
	work := make([]float64, cm.k*cm.k)
	a, err := cm.biasCorrection(ctx, est.Theta, opt.Lambda, opt.Printed, opt.stage(""), work)
	if err != nil {
		return nil, err
	}
	alpha := opt.Alpha
	if alpha == 0 {
		em.Progress, em.Inner = nil, nil
		if alpha, err = chooseAlpha(ctx, mechs, g, s, est.Theta, em, opt, work); err != nil {
			return nil, err
		}
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("core: cem: α must be positive and finite, got %v", alpha)
	}
	est.Theta = corrected(est.Theta, a, alpha)
	est.Alpha = alpha
	est.LogLik, _ = m.step(est.Theta, make([]float64, cm.k))
	return est, nil
}

// stage returns the cemStage that reports to opt.Progress with the
// stage's name after prefix.
func (opt CEMOptions) stage(prefix string) cemStage {
	if opt.Progress == nil {
		return nil
	}
	return func(name string, done float64) { opt.Progress(prefix+name, done) }
}

// corrected returns clip-and-renormalise(θ − α a).
func corrected(theta, a []float64, alpha float64) []float64 {
	t := make([]float64, len(theta))
	floats.AddScaledTo(t, theta, -alpha, a)
	return ClipNormalize(t)
}

// checkCEMSize refuses, before anything is allocated, a corrected EM
// whose K×K matrix Ŝ + λI (inverted in place) does not fit in the
// memory this machine has.
func checkCEMSize(k int) error {
	return CheckMemory(fmt.Sprintf("corrected EM's %d×%d matrix Ŝ + λI (CEM eq. (31)–(32))", k, k), cemBytes(k))
}

// chooseAlpha runs CEM §4.3's simulation and returns the α of the grid
// whose corrected estimate is closest to p'.
func chooseAlpha(ctx context.Context, mechs []Mechanism, g *Groups, s *Study, theta []float64, em EMOptions, opt CEMOptions, work []float64) (float64, error) {
	p := simulationTruth(mechs, g, theta)
	rng := rand.New(rand.NewPCG(opt.Seed, 0x63656d))
	sim, err := SimulateGroups(ctx, rng, mechs, g.Users, p)
	if err != nil {
		return 0, err
	}
	cm, err := newCEMModel(mechs, sim, s, columnBudget)
	if err != nil {
		return 0, err
	}
	m, err := newModel(mechs, sim, s, columnBudget)
	if err != nil {
		return 0, err
	}
	est, err := gibuRun(ctx, m, mechs, sim, em)
	if err != nil {
		return 0, err
	}
	a, err := cm.biasCorrection(ctx, est.Theta, opt.Lambda, opt.Printed, opt.stage("Choosing α: "), work)
	if err != nil {
		return 0, err
	}
	return pickAlpha(est.Theta, a, p), nil
}

// pickAlpha returns the α of the grid whose correction of theta by a
// comes closest to p in squared error (CEM §4.3).
func pickAlpha(theta, a, p []float64) float64 {
	best, bestErr := 0.0, math.Inf(1)
	for _, alpha := range alphaGrid() {
		t := corrected(theta, a, alpha)
		if e := floats.Distance(t, p, 2); e < bestErr {
			best, bestErr = alpha, e
		}
	}
	return best
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
	Refuses: CapPersonal, Alpha: true, Cost: CostCorrectedEM, memory: cemBytes, ownLogLik: true,
	run: func(e *estimation) (*Estimate, error) {
		return CorrectedEM(e.ctx, e.mechs, e.g, e.s, e.opt.EM, e.opt.CEM)
	}}
